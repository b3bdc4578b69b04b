// What building a provider (chat model, embeddings) may need from outside: the bindings and
// defaults it reads, stored credentials, the run's abort signal. Narrower than the Worker's Env,
// so the engine hands providers a port rather than the environment.
import type { EndpointEnv } from "../lib/outbound";

/**
 * The bindings and vars providers read. The Worker's Env has them all. OUTBOUND_ALLOW and
 * ENVIRONMENT (EndpointEnv): every endpoint a provider calls is under the outbound policy's
 * endpoint rule (src/lib/outbound.ts).
 */
export interface ProviderEnv extends EndpointEnv {
  AI?: Ai;
  VECTORIZE?: VectorizeIndex;
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  /** Base URLs of the search and paper services tools call (default: the public service). */
  SERPAPI_BASE_URL?: string;
  SERPER_BASE_URL?: string;
  GOOGLE_CUSTOM_SEARCH_BASE_URL?: string;
  BRAVE_SEARCH_BASE_URL?: string;
  TAVILY_BASE_URL?: string;
  ARXIV_BASE_URL?: string;
  /** GitHub's REST API for the github loader (default https://api.github.com). */
  GITHUB_API_BASE_URL?: string;
  /** Default base URLs of the native chat APIs (tests point them at loopback stand-ins). */
  ANTHROPIC_BASE_URL?: string;
  GOOGLE_GENERATIVE_AI_BASE_URL?: string;
  HUGGINGFACE_BASE_URL?: string;
  REPLICATE_BASE_URL?: string;
}

export interface ProviderDeps {
  env: ProviderEnv;
  /** Decrypted credential values by credential id (404 when missing). */
  getCredential(id: string): Promise<Record<string, unknown>>;
  /** Used by a model when a call brings no signal of its own (the run's). */
  signal?: AbortSignal;
}
