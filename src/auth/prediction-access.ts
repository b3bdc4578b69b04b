import type { Context } from "hono";
import type { AppEnv } from "../env";
import { type RunTarget, assertPrincipalMayRun } from "../services/callers/run-access";
import { resolvePrincipal } from "./bearer";

export { type RunTarget, assertOriginAllowed } from "../services/callers/run-access";

/**
 * Who may run a chatflow — and so also stop its runs and write its widget records (leads,
 * feedback): one bound to an API key needs that key (or the admin key); otherwise a public
 * chatflow is open and a private one needs any valid bearer. A key limited to chatflows runs only
 * those (a public, unbound chatflow stays open to it, as to anyone).
 */
export async function assertMayRun(c: Context<AppEnv>, flow: RunTarget): Promise<void> {
  assertPrincipalMayRun(await resolvePrincipal(c), flow);
}
