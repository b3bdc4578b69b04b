// The services container (deps.ts says what it holds): built once per request by the init
// middleware (c.var.services, as unkey's init does), per batch by the upsert queue's consumer, per
// tick by the Cron Trigger and per run by the Workflow, always here and always the same way. Every
// service takes it, or the part of it it needs, as its first argument. The engine's ports are built
// on first use: a request, a tick or a batch that runs no flow never builds them.
import { type Config, configOf } from "../config";
import type { CredentialReadOptions, Runtime } from "../engine";
import type { Db, Env } from "../env";
import { getCredentialData } from "./credentials";
import { withFreshTokens } from "./oauth2";
import type { Services } from "./deps";
import type { DetachedRuns } from "./detached-runs";
import { createRuntime } from "./runtime";

export type { Deps, Services } from "./deps";

export interface ServicesInit {
  db: Db;
  env: Env;
  /** Defaults to the env's (configOf). */
  config?: Config;
  /** Defaults to the FILES binding. */
  files?: R2Bucket;
  /** Who asked (its id prefixes fault logs) and how work outlives the answer. */
  request: { id?: string; waitUntil(work: Promise<unknown>): void; runStarted?(): void };
  /** The Workflows engine behind detached runs (src/detached/runs-port.ts), handed in by the entry that builds this. */
  detached?: DetachedRuns;
}

export function createServices({ db, env, config = configOf(env), files = env.FILES, request, detached }: ServicesInit): Services {
  const getCredential = (id: string, options?: CredentialReadOptions) =>
    withFreshTokens({ db, env }, id, getCredentialData({ db, env }, id), options);
  let runtime: Runtime | undefined;
  return {
    db,
    env,
    config,
    files,
    get runtime() {
      runtime ??= createRuntime({ db, env, files, getCredential });
      return runtime;
    },
    getCredential,
    waitUntil: (work) => request.waitUntil(work),
    requestId: request.id,
    runStarted: request.runStarted,
    detached,
  };
}
