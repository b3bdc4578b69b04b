// What building a provider (chat model, embeddings) may need from outside: the bindings and
// defaults it reads, stored credentials, the run's abort signal. Narrower than the Worker's Env,
// so the engine hands providers a port rather than the environment.
import type { ProviderVar } from "../env";
import type { EndpointEnv } from "../lib/outbound";

/**
 * The bindings and vars providers read (the names: env.ts PROVIDER_VARS). OUTBOUND_ALLOW and
 * ENVIRONMENT (EndpointEnv): every endpoint a provider calls is under the outbound policy's
 * endpoint rule (src/lib/outbound/).
 */
export interface ProviderEnv extends EndpointEnv, Partial<Record<ProviderVar, string>> {
  AI?: Ai;
  VECTORIZE?: VectorizeIndex;
}

export interface ProviderDeps {
  env: ProviderEnv;
  /** Decrypted credential values by credential id (404 when missing). */
  getCredential(id: string): Promise<Record<string, unknown>>;
  /** Used by a model when a call brings no signal of its own (the run's). */
  signal?: AbortSignal;
}
