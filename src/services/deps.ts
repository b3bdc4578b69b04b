// What the services reach outside themselves: the container (container.ts) holds all of it, built
// once per request, queue batch, Cron tick and Workflow run. A service names the part it needs —
// `listTools(deps: Deps<"db">, …)`, `deleteStore(deps: Deps<"db" | "env" | "files">, …)` — so a
// route hands it the request's container whole (c.var.services) and a test a plain object with only
// those fields. This file imports no service: every service may import it without a cycle.
import type { Config } from "../config";
import type { CredentialReadOptions, Runtime } from "../engine";
import type { Db, Env } from "../env";
import type { DetachedRuns } from "./detached-runs";

export interface Services {
  /** The request's Drizzle client (over its D1 session, in a request). */
  db: Db;
  env: Env;
  /** The parsed configuration (config.ts). */
  config: Config;
  /** R2: uploads, loaders' files, flows' files, executions' files (the FILES binding). */
  files: R2Bucket;
  /** The engine's ports (services/runtime), built on first use: work that runs no flow never builds them. */
  readonly runtime: Runtime;
  /** A credential's decrypted values (the engine's model and embedding nodes, document stores). */
  getCredential(id: string, options?: CredentialReadOptions): Promise<Record<string, unknown>>;
  /** Keeps the isolate alive for work that outlives the answer: executionCtx.waitUntil. */
  waitUntil(work: Promise<unknown>): void;
  /** Prefixes the log line of a fault that is not the API's own error. */
  requestId?: string;
  /** A run's runtime took over (its look-ups done): the simulated planet counts the round trips before it (development only). */
  runStarted?(): void;
  /** The Workflows engine behind detached runs (absent without the RUNS binding). */
  detached?: DetachedRuns;
}

/** The part of the container a service takes. */
export type Deps<K extends keyof Services> = Pick<Services, K>;
