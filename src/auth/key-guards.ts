// API keys managing API keys: a limited key reaches only keys within its own scope and can hand
// out no more than it holds (Flowise: a user cannot give a key permissions beyond their own).
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { forbidden } from "../errors";
import { type Access, allowsAny, covers, isFull } from "../services/callers/access";
import { type Guard, accessFrom, guard, lacking, pathId } from "./guard";
import { findKeyScope, type GrantCheck, type KeyScope } from "../services/apikeys";

const beyond = () => forbidden("Forbidden: an API key may only manage and grant permissions and chatflows within its own");

/** One of `names`, and the key in the path (when it exists) within the caller's scope. */
export function onApiKey(param: string, ...names: string[]): Guard {
  return guard(`${names.join(" or ")}; a limited key reaches only keys within its own scope`, async (c, access) => {
    if (!allowsAny(access, names)) throw lacking(names);
    const id = pathId(c, param);
    if (!id) return;
    const scope = await findKeyScope(c.var.services, id);
    if (scope && !covers(access, scope)) throw beyond();
  });
}

/** The rule for the scope a create or update would give a key. */
export async function grantCheck(c: Context<AppEnv>): Promise<GrantCheck> {
  const access: Access = await accessFrom(c);
  return (scope: KeyScope) => {
    if (!covers(access, scope)) throw beyond();
  };
}

/** Which keys a list shows the caller: all, or those within its scope. */
export async function visibleKeys(c: Context<AppEnv>): Promise<((scope: KeyScope) => boolean) | undefined> {
  const access = await accessFrom(c);
  return isFull(access) ? undefined : (scope) => covers(access, scope);
}
