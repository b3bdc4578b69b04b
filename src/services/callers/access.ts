// What a caller may do, as plain data and rules (no HTTP): auth/guard.ts applies them to requests,
// the run door (services/runs) to a caller it gets as data.
import { type ApiError, forbidden } from "../../errors";
import type { ChatflowType } from "../../db/enums";
import { CHATFLOW_TYPES } from "../../db/enums";
import type { Principal } from "../../env";
import type { KeyScope } from "../apikeys";
import type { RecordAction, RecordCategory } from "../../schemas/permissions";

/**
 * `permissions` null = every permission; `chatflows` null = every chatflow. The admin key, JWTs
 * and API keys created without `permissions` have both null (full access).
 */
export interface Access {
  permissions: ReadonlySet<string> | null;
  chatflows: ReadonlySet<string> | null;
}

const FULL: Access = { permissions: null, chatflows: null };

export function accessOf(principal: Principal): Access {
  if (principal.kind !== "apikey") return FULL;
  return {
    permissions: principal.permissions ? new Set(principal.permissions) : null,
    chatflows: principal.chatflows ? new Set(principal.chatflows) : null,
  };
}

/** The admin key, or a person signed in to the studio: passes even a flow bound to an API key. */
export const isOwner = (principal: Principal | null | undefined): boolean => principal?.kind === "admin" || principal?.kind === "session";

export const isFull = (a: Access): boolean => a.permissions === null && a.chatflows === null;

export const allowsAny = (a: Access, names: readonly string[]): boolean =>
  a.permissions === null || names.some((n) => a.permissions!.has(n));

export const flowInScope = (a: Access, id: string): boolean => a.chatflows === null || a.chatflows.has(id.toLowerCase());

/** Agentflows (V2 `AGENTFLOW`, V1 `MULTIAGENT`) and assistants have their own permissions, as in Flowise. */
export function categoryOfFlowType(type: ChatflowType): RecordCategory {
  if (type === "AGENTFLOW" || type === "MULTIAGENT") return "agentflows";
  if (type === "ASSISTANT") return "assistants";
  return "chatflows";
}

export const namesFor = (category: RecordCategory, actions: readonly RecordAction[]): string[] =>
  actions.map((action) => `${category}:${action}`);

/**
 * The chatflow records a list may show the caller: the types whose category it holds one of
 * `actions` for (null = all types), and the ids it is limited to (null = all).
 */
export function visibleFlows(a: Access, actions: readonly RecordAction[]): { types: ChatflowType[] | null; ids: string[] | null } {
  const types = a.permissions === null ? null : CHATFLOW_TYPES.filter((t) => allowsAny(a, namesFor(categoryOfFlowType(t), actions)));
  return { types, ids: a.chatflows ? [...a.chatflows] : null };
}

/**
 * Whether a caller may hand out (or manage) a key of this scope: never more than it holds itself,
 * so a limited key cannot mint a key of wider reach (Flowise's rule for non-admin users).
 */
export function covers(a: Access, scope: KeyScope): boolean {
  if (a.permissions !== null && (scope.permissions === null || scope.permissions.some((p) => !a.permissions!.has(p)))) return false;
  if (a.chatflows !== null && (scope.chatflows === null || scope.chatflows.some((id) => !a.chatflows!.has(id)))) return false;
  return true;
}

/** A key limited to other chatflows. */
export const outOfScope = (): ApiError => forbidden("Forbidden: this API key is limited to other chatflows");
