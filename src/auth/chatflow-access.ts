import type { Context } from "hono";
import type { AppEnv } from "../env";
import { unauthorized } from "../errors";
import { resolvePrincipal } from "./bearer";

/**
 * Widget-facing routes (leads, feedback, prediction) are open for a public chatflow and
 * need a bearer token otherwise.
 */
export async function assertChatflowAccess(c: Context<AppEnv>, flow: { isPublic: boolean }): Promise<void> {
  if (await resolvePrincipal(c)) return;
  if (flow.isPublic) return;
  throw unauthorized("Unauthorized: this chatflow is not public; a bearer token is required");
}
