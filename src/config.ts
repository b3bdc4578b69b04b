// One configuration: the vars the Worker reads for its own behaviour, each with its default and
// bounds in one table, parsed with zod once per env object (an isolate's env does not change; a
// test that changes a var calls forgetConfig). A var that does not parse falls back to its default,
// as before, so a typo never takes a deployment down. The work limits keep their own table
// (lib/limits.ts) and the providers' base URLs theirs (providers/types.ts PROVIDER_VARS).
import { z } from "zod";

/** A positive number (a string var), cut to `max`; else `fallback`. */
const positive = (fallback: number, max = Number.POSITIVE_INFINITY) =>
  z
    .preprocess(
      (v) => (v === undefined || v === "" ? undefined : Number(v)),
      z
        .number()
        .finite()
        .positive()
        .transform((n) => Math.min(n, max)),
    )
    .optional()
    .transform((v) => v ?? fallback)
    .catch(fallback);

const HOUR_MS = 3_600_000;
/** Where Flowise's prompt picker reads LangChain Hub (langchainhub's Client default). */
const LANGCHAIN_HUB = "https://api.hub.langchain.com";

const Vars = z.object({
  ENVIRONMENT: z
    .string()
    .optional()
    .transform((v) => v || "production")
    .catch("production"),
  /** A whole synchronous run's time limit. */
  RUN_TIMEOUT_MS: positive(120_000),
  /** A detached run's time limit per part (a run, then each resume). */
  ASYNC_RUN_TIMEOUT_MS: positive(HOUR_MS),
  /** How long a paused detached run waits for its resume. */
  HUMAN_INPUT_TIMEOUT_MS: positive(7 * 24 * HOUR_MS),
  /** How long a detached run may go without progress before it is woken (a restart left it cut off). */
  DETACHED_STALL_MS: positive(30_000),
  /** Sandboxed code: the whole call, and a computing stretch between awaits (both at most 60 s). */
  TOOL_TIMEOUT_MS: positive(5_000, 60_000),
  TOOL_SLICE_MS: positive(500, 60_000),
  /** Seconds an agentflow execution may go without a sign of life before it is TIMEOUT. */
  EXECUTION_LEASE_SECONDS: positive(120),
  /** Studio sessions: minutes without a request after which a person must sign in again (default 12 h, at most 30 days). */
  SESSION_IDLE_MINUTES: positive(720, 30 * 24 * 60),
  MAX_BODY_MB: positive(5),
  MAX_UPLOAD_MB: positive(20),
  /** Speech to text: the largest recording a prediction may carry (413), and the longest (400; docs/speech.md). */
  MAX_AUDIO_MB: positive(10),
  MAX_AUDIO_SECONDS: positive(300),
  /** A Flowise export file's size limit (POST /export-import/import reads it as a stream). */
  MAX_IMPORT_MB: positive(50),
  /** Time to send one run's trace to every backend (sent after the answer, through waitUntil). */
  TRACE_TIMEOUT_MS: positive(10_000, 25_000),
  /** How long a document store upsert's lease lasts without a heartbeat. */
  UPSERT_LEASE_SECONDS: positive(60),
  /** LangChain Hub's HTTP API, which the studio's prompt picker lists and loads prompts from (/prompts-list, /load-prompt). */
  LANGCHAIN_HUB_URL: z
    .string()
    .url()
    .optional()
    .transform((v) => (v || LANGCHAIN_HUB).replace(/\/+$/, ""))
    .catch(LANGCHAIN_HUB),
  /** Behind Cloudflare's edge, CF-Connecting-IP is the client's address (rate limits count by it). */
  TRUST_CF_CONNECTING_IP: z
    .unknown()
    .transform((v) => v === "true" || v === true)
    .catch(false),
});

export type Config = z.output<typeof Vars>;

const parsed = new WeakMap<object, Config>();

/** The configuration of `env`, parsed the first time it is asked for. */
export function configOf(env: object): Config {
  let config = parsed.get(env);
  if (!config) {
    config = Vars.parse(env);
    parsed.set(env, config);
  }
  return config;
}

// Other values made from an env once per env object (perEnv), forgotten with its configuration.
const derived: Array<WeakMap<object, unknown>> = [];

/** `make(env)` once per env object (an isolate keeps one), not per request or run. */
export function perEnv<T>(make: (env: object) => T): (env: object) => T {
  const made = new WeakMap<object, T>();
  derived.push(made);
  return (env) => {
    if (made.has(env)) return made.get(env) as T;
    const value = make(env);
    made.set(env, value);
    return value;
  };
}

/** Forgets `env`'s parsed configuration and what perEnv made of it (tests that change a var of a live env). */
export function forgetConfig(env: object): void {
  parsed.delete(env);
  for (const made of derived) made.delete(env);
}

const MB = 1024 * 1024;
export const maxBodyBytes = (env: object): number => configOf(env).MAX_BODY_MB * MB;
export const maxUploadBytes = (env: object): number => configOf(env).MAX_UPLOAD_MB * MB;
export const maxImportBytes = (env: object): number => configOf(env).MAX_IMPORT_MB * MB;
