// The worker's own secrets: what no runtime variable may read and what no error may carry out.
import { listVar } from "../env";

/**
 * Environment names holding the worker's credentials. Never readable as runtime variables, even
 * when RUNTIME_VARS lists them: each one is a master key (admin access, minting tokens, decrypting
 * every stored credential, the deployment's model key).
 */
const WORKER_SECRET_NAMES: ReadonlySet<string> = new Set([
  "ADMIN_API_KEY",
  "JWT_SECRET",
  "CREDENTIAL_ENCRYPTION_KEY",
  "OPENAI_API_KEY",
  // The Cloudflare API token the browser-rendered web scrapers use (providers/loaders/browser-rendering.ts).
  "BROWSER_RENDERING_API_TOKEN",
]);

/** The values of the worker's secrets that are set (for scrubbing error messages). */
export function workerSecretValues(env: object): string[] {
  const vars = env as Record<string, unknown>; // the worker's Env names no index signature
  return [...WORKER_SECRET_NAMES].map((name) => vars[name]).filter((v): v is string => typeof v === "string" && v.length > 0);
}

/**
 * The value a runtime variable `name` reads from the environment: only a string variable the
 * deployment lists in RUNTIME_VARS, never one of the worker's secrets, never a binding.
 */
export function readableEnvVar(env: object, name: string): string | undefined {
  const vars = env as Record<string, unknown>; // the worker's Env names no index signature: names are known at run time
  if (WORKER_SECRET_NAMES.has(name)) return undefined;
  if (!listVar(typeof vars.RUNTIME_VARS === "string" ? vars.RUNTIME_VARS : undefined).includes(name)) return undefined;
  const value = vars[name];
  return typeof value === "string" ? value : undefined;
}
