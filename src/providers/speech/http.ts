// The HTTP speech providers' one request: the configured endpoint checked by the outbound policy
// (every hop through endpointFetch), a deadline, non-2xx as the provider's error (502 naming it),
// one retry of a network failure or 5xx; a JSON answer, or an audio body streamed through with its
// deadline restarted per chunk.
import { fail } from "../../errors";
import { str } from "../../lib/inputs";
import { checkEndpoint } from "../../lib/outbound";
import { DEFAULT_TIMEOUT_MS, Deadline, withOneRetry } from "../../lib/run-control";
import { providerFetch, readJson } from "../chat/http";
import { httpUrl } from "../chat/endpoints";
import type { SpeechConfig, SpeechDeps } from "./types";

export interface SpeechCall {
  /** For messages: "OpenAI Whisper". */
  provider: string;
  url: string;
  /** Where the URL came from ("openAIApi credential basePath", "ELEVENLABS_BASE_URL"), named in a refusal. */
  field: string;
  init: () => RequestInit;
  deps: SpeechDeps;
}

/** The first base URL set among `sources` (value, where it came from), else the service's own; checked http(s), no trailing slash. */
export function baseUrlOf(sources: Array<[unknown, string]>, fallback: string, what: string): { url: string; field: string } {
  for (const [value, field] of sources) {
    const s = str(value);
    if (s) return { url: httpUrl(s, field), field };
  }
  return { url: fallback, field: what };
}

async function send(call: SpeechCall, deadline: Deadline): Promise<Response> {
  const policy = checkEndpoint(call.url, call.field, call.deps.env);
  return providerFetch(call.url, call.init(), deadline, call.provider, policy);
}

/** The JSON answer of one call (retried once on a network failure or 5xx). */
export function callForJson<T = Record<string, unknown>>(call: SpeechCall): Promise<T> {
  return withOneRetry(
    async () => {
      const deadline = new Deadline(DEFAULT_TIMEOUT_MS, call.deps.signal);
      try {
        return await readJson<T>(await send(call, deadline), deadline, call.provider);
      } finally {
        deadline.done();
      }
    },
    () => false,
    call.deps.signal,
  );
}

/** The audio body of one call, streamed through: the deadline restarts with every chunk and ends with the body. */
export async function callForAudio(call: SpeechCall): Promise<ReadableStream<Uint8Array>> {
  const res = await withOneRetry(
    async () => {
      const deadline = new Deadline(DEFAULT_TIMEOUT_MS, call.deps.signal);
      try {
        const answer = await send(call, deadline);
        if (!answer.body) throw fail("MODEL_FAILED", `${call.provider} answered without audio`);
        return { body: answer.body, deadline };
      } catch (err) {
        deadline.done();
        throw err;
      }
    },
    () => false,
    call.deps.signal,
  );
  return res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        res.deadline.touch();
        controller.enqueue(chunk);
      },
      flush() {
        res.deadline.done();
      },
    }),
  );
}

/** A stored credential's values, named by the config's `credentialId`; a missing id is a 400 naming the provider. */
export async function credentialFor(config: SpeechConfig, deps: SpeechDeps, provider: string): Promise<Record<string, unknown>> {
  const id = str(config.credentialId) ?? str(config.credential);
  if (!id) throw fail("MISSING_CREDENTIAL", `${provider} needs a credential: set credentialId in its speech settings`);
  return deps.getCredential(id);
}

/** The credential's `field`, or a 400 naming what is missing. */
export function keyOf(credential: Record<string, unknown>, field: string, provider: string): string {
  const key = str(credential[field]);
  if (!key) throw fail("MISSING_CREDENTIAL", `${provider}: the credential has no ${field}`);
  return key;
}

/** Why a provider that needs a stored credential cannot run: none is named. */
export const needsCredential = (provider: string) => (config: SpeechConfig) =>
  str(config.credentialId) || str(config.credential) ? undefined : `${provider} needs a credential (credentialId)`;

/** The audio's bytes as a multipart file part. */
export const audioBlob = (bytes: Uint8Array, mime: string): Blob =>
  new Blob([bytes as unknown as ArrayBuffer], { type: mime || "application/octet-stream" });
