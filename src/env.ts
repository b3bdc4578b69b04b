import type { DrizzleD1Database } from "drizzle-orm/d1";
import type * as schema from "./db/schema";

/** Worker bindings, vars and secrets. AI and VECTORIZE are optional: absent locally. */
export interface Env {
  DB: D1Database;
  FILES: R2Bucket;
  AI?: Ai;
  VECTORIZE?: VectorizeIndex;
  RATE_LIMITER?: DurableObjectNamespace;
  ENVIRONMENT?: string;
  ADMIN_API_KEY?: string;
  JWT_SECRET?: string;
  CREDENTIAL_ENCRYPTION_KEY?: string;
  MAX_BODY_MB?: string;
  /** Upload limit of document store upserts, in MB (default 20). */
  MAX_UPLOAD_MB?: string;
  /**
   * Seconds a document store upsert's lease lasts without a heartbeat (default 60): work whose
   * worker stopped renewing it for that long is shown STALE. A queued upsert's lasts 5 times that.
   */
  UPSERT_LEASE_SECONDS?: string;
  /** Queue of asynchronous document store upserts (producer; this worker is also its consumer). */
  UPSERT_QUEUE?: Queue;
  CORS_ORIGINS?: string;
  OUTBOUND_ALLOW?: string;
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  /** Comma-separated environment names that runtime variables may read (never the secrets above). */
  RUNTIME_VARS?: string;
  /** Time limit of a whole prediction run, in ms (default 120000). */
  RUN_TIMEOUT_MS?: string;
  /** "true" when the worker runs behind Cloudflare's edge, which sets CF-Connecting-IP (rate limits key on it). */
  TRUST_CF_CONNECTING_IP?: string;
  [runtimeVariable: string]: unknown;
}

export type Db = DrizzleD1Database<typeof schema>;

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
