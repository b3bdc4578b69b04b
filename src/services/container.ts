// The services container a request's handlers get (c.var.services, built once by the init
// middleware, as unkey's init does): the request's database client, the Worker's env and its parsed
// configuration, the engine's ports, credentials, the request's id and waitUntil, and the Workflows
// engine behind detached runs. It satisfies what the run door (RunDeps) and the document stores
// (DocStoreDeps) take, so a route hands it on whole instead of assembling its own deps.
import type { Config } from "../config";
import { configOf } from "../config";
import type { Db, Env } from "../env";
import type { DocStoreDeps } from "./document-store/types";
import type { DetachedRuns } from "./detached-runs";
import type { RunDeps } from "./runs";
import { createRuntime } from "./runtime";

export interface Services extends RunDeps, DocStoreDeps {
  config: Config;
}

/** `detached`: the Workflows engine behind detached runs (src/detached/runs-port.ts), handed in by the entry that builds this. */
export function createServices(
  env: Env,
  db: Db,
  request: { id?: string; waitUntil(work: Promise<unknown>): void },
  detached?: DetachedRuns,
): Services {
  const runtime = createRuntime(env, db);
  return {
    detached,
    db,
    env,
    config: configOf(env),
    runtime,
    getCredential: runtime.credentials,
    waitUntil: (work) => request.waitUntil(work),
    requestId: request.id,
  };
}
