import type { Db } from "./db";

// Db is defined beside the client (db/index.ts, which imports nothing of ours); kept here for the
// many modules that import it with Env.
export type { Db };

/**
 * The worker's environment: the bindings and vars wrangler.toml declares, as `wrangler types`
 * generates them (worker-configuration.d.ts, `npm run cf-typegen`; AI and VECTORIZE are optional
 * because the local environment does not declare them), plus what wrangler.toml does not list:
 * secrets (`wrangler secret put`, .dev.vars) and optional vars.
 */
export interface Env extends CloudflareBindings, OptionalConfig {}

interface OptionalConfig {
  ADMIN_API_KEY?: string;
  JWT_SECRET?: string;
  CREDENTIAL_ENCRYPTION_KEY?: string;
  /**
   * Seconds a document store upsert's lease lasts without a heartbeat (default 60): work whose
   * worker stopped renewing it for that long is shown STALE. A queued upsert's lasts 5 times that.
   */
  UPSERT_LEASE_SECONDS?: string;
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  /** Tool services' base URLs (tests point them at loopback stand-ins); README "Configuration". */
  SERPAPI_BASE_URL?: string;
  SERPER_BASE_URL?: string;
  GOOGLE_CUSTOM_SEARCH_BASE_URL?: string;
  BRAVE_SEARCH_BASE_URL?: string;
  TAVILY_BASE_URL?: string;
  ARXIV_BASE_URL?: string;
  /** Custom tool time limit in ms (default 5000, at most 60000). */
  TOOL_TIMEOUT_MS?: string;
  ANTHROPIC_BASE_URL?: string;
  GOOGLE_GENERATIVE_AI_BASE_URL?: string;
  HUGGINGFACE_BASE_URL?: string;
  REPLICATE_BASE_URL?: string;
  /** Seconds an agentflow execution may go without a sign of life before it is TIMEOUT (default 120). */
  EXECUTION_LEASE_SECONDS?: string;
  /** Pinecone's control plane (default https://api.pinecone.io); index hosts come from describe_index. */
  PINECONE_BASE_URL?: string;
  /** D1 bindings sqlDatabaseChain flows may query, and those they may also write (README "SQL databases"). */
  SQL_D1_BINDINGS?: string;
  SQL_D1_WRITE_BINDINGS?: string;
  /** GitHub's REST API for the github loader (default https://api.github.com). */
  GITHUB_API_BASE_URL?: string;
  /** Browser origins that may call the MCP endpoints (comma-separated, `*` = any); requests from others are 403. */
  MCP_CORS_ORIGINS?: string;
  /** Asynchronous runs (docs/async-runs.md): the key their callbacks are signed with (HMAC-SHA256). */
  CALLBACK_SECRET?: string;
  /** A detached run's time limit per run or resume, in ms (default 3,600,000: an hour). */
  ASYNC_RUN_TIMEOUT_MS?: string;
  /** How long a detached run waits for human input, in ms (default 7 days), then ends TIMEOUT. */
  HUMAN_INPUT_TIMEOUT_MS?: string;
  /**
   * Development only (src/lib/d1-simulation.ts; refused elsewhere): ms added to each D1 round trip to the
   * primary, and to a replica, so the benchmark shows what a client far from D1 pays.
   */
  D1_SIMULATED_RTT_MS?: string;
  D1_SIMULATED_REPLICA_RTT_MS?: string;
}

/** Who made the request, once the bearer token checked out. */
export type Principal =
  | { kind: "admin" }
  | { kind: "apikey"; keyId: string; permissions: string[] | null; chatflows: string[] | null }
  | { kind: "jwt"; subject: string | null };

export type AppEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    db: Db;
    principal: Principal | null;
    /** 422 on the endpoints whose contract names a validation exception; else 400. */
    validationStatus: 400 | 422;
  };
};

export function isDevelopment(env: Env): boolean {
  return env.ENVIRONMENT === "development";
}

export function maxBodyBytes(env: Env): number {
  const mb = Number(env.MAX_BODY_MB);
  return (Number.isFinite(mb) && mb > 0 ? mb : 5) * 1024 * 1024;
}

/** The upload limit of document store and vector upserts: MAX_UPLOAD_MB (default 20). */
export function maxUploadBytes(env: Env): number {
  const mb = Number(env.MAX_UPLOAD_MB);
  return (Number.isFinite(mb) && mb > 0 ? mb : 20) * 1024 * 1024;
}

export function listVar(value: string | undefined): string[] {
  return (value ?? "").split(",").map((s) => s.trim()).filter(Boolean);
}
