// Guards whose permission depends on the record: a chatflow's type decides between chatflows:*,
// agentflows:* (AGENTFLOW, MULTIAGENT) and assistants:* (ASSISTANT), an assistant needs
// assistants:*, a document store documentStores:*; and a key limited to chatflows reaches only those.
import type { Context } from "hono";
import { CHATFLOW_TYPES, type ChatflowType } from "../db/enums";
import type { AppEnv } from "../env";
import { forbidden } from "../errors";
import { type Access, allowsAny, categoryOfFlowType, flowInScope, isFull, namesFor, visibleFlows } from "../services/callers/access";
import { type Guard, accessFrom, guard, lacking, outOfScope, pathId } from "./guard";
import type { RecordAction, RecordCategory } from "../schemas/permissions";
import { type RecordOwner, findOwner } from "../services/owners";

const ALL_CATEGORIES: RecordCategory[] = ["chatflows", "agentflows", "assistants", "documentStores"];

const categoryOf = (owner: RecordOwner): RecordCategory =>
  owner.kind === "chatflow" ? categoryOfFlowType(owner.type) : owner.kind === "assistant" ? "assistants" : "documentStores";

function assertOnOwner(access: Access, owner: RecordOwner, actions: readonly RecordAction[]): void {
  const names = namesFor(categoryOf(owner), actions);
  if (!allowsAny(access, names)) throw lacking(names);
  if (owner.kind !== "documentStore" && !flowInScope(access, owner.id)) throw outOfScope();
}

const describe = (actions: readonly RecordAction[]) =>
  `${actions.map((a) => `<kind>:${a}`).join(" or ")} for the record's kind (chatflows, agentflows for ` +
  `AGENTFLOW/MULTIAGENT, assistants, documentStores), within the key's chatflow limit`;

/**
 * The action on each record the request names (ids from the path or body). Ids naming nothing
 * are left to the handler's 404, but the caller must still hold the action on some kind of record.
 */
export function onRecords(idsOf: (c: Context<AppEnv>) => Promise<string[]>, ...actions: RecordAction[]): Guard {
  return guard(describe(actions), async (c, access) => {
    if (!ALL_CATEGORIES.some((cat) => allowsAny(access, namesFor(cat, actions)))) throw lacking(namesFor("chatflows", actions));
    for (const id of await idsOf(c)) {
      const owner = await findOwner(c.var.services, id);
      if (owner) assertOnOwner(access, owner, actions);
    }
  });
}

/** The action on a record the handler has already read (no second read): onRecords' 401 and 403. */
export async function assertOnRecord(c: Context<AppEnv>, owner: RecordOwner, ...actions: RecordAction[]): Promise<void> {
  const access = await accessFrom(c);
  if (!isFull(access)) assertOnOwner(access, owner, actions);
}

/** The record named by a path parameter (a malformed id is left to validation's 400). */
export const onPathRecord = (param: string, ...actions: RecordAction[]): Guard =>
  onRecords(
    async (c) => {
      const id = pathId(c, param);
      return id ? [id] : [];
    },
    ...actions,
  );

/** The JSON body, read ahead of validation (Hono caches it for the validator); {} when unreadable. */
export async function peekBody(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  try {
    const body = await c.req.json();
    return body && typeof body === "object" && !Array.isArray(body) ? body : {};
  } catch {
    return {};
  }
}

const bodyType = async (c: Context<AppEnv>): Promise<ChatflowType | undefined> => {
  const type = (await peekBody(c)).type;
  return CHATFLOW_TYPES.includes(type as ChatflowType) ? (type as ChatflowType) : undefined;
};

/**
 * Saving a chatflow record as the type its body gives (CHATFLOW when a create gives none). A key
 * limited to chatflows cannot create one: the new record would be outside its reach.
 */
export function onFlowBody(mode: "create" | "update", ...actions: RecordAction[]): Guard {
  return guard(`${describe(actions)} of the body's type`, async (c, access) => {
    if (mode === "create" && access.chatflows !== null)
      throw forbidden("Forbidden: this API key is limited to some chatflows and cannot create others");
    const type = (await bodyType(c)) ?? (mode === "create" ? "CHATFLOW" : undefined);
    if (!type) return;
    const names = namesFor(categoryOfFlowType(type), actions);
    if (!allowsAny(access, names)) throw lacking(names);
  });
}

/**
 * Lists of chatflow records: `?type=` needs that type's permission; without it at least one
 * type must be visible. The handler narrows the list with visibleFlows().
 */
export function onFlowList(...actions: RecordAction[]): Guard {
  return guard(
    `${actions.map((a) => `<kind>:${a}`).join(" or ")}; the list shows only the kinds and chatflows the key reaches`,
    (c, access) => {
      const type = c.req.query("type");
      if (type && CHATFLOW_TYPES.includes(type as ChatflowType)) {
        const names = namesFor(categoryOfFlowType(type as ChatflowType), actions);
        if (!allowsAny(access, names)) throw lacking(names);
      } else if (visibleFlows(access, actions).types?.length === 0) {
        throw lacking(namesFor("chatflows", actions));
      }
    },
  );
}
