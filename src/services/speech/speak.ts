// Text to speech on request (POST /text-to-speech/generate): the chatflow's active provider (or the
// one the request names — the studio's "test voice" — else Workers AI), its audio streamed as
// Flowise's frames: `tts_start` {chatMessageId, format}, `tts_data` {chatMessageId, audioChunk:
// base64} as the provider makes the audio, `tts_end`; `tts_abort` when stopped
// (POST /text-to-speech/abort), `tts_error` when the provider fails mid-way. A failure before the
// first byte (no provider, no credential, the provider refusing) is an ordinary error answer.
import { fail } from "../../errors";
import { str } from "../../lib/inputs";
import type { SpeechConfig, TextToSpeechProvider, Voice } from "../../providers/speech/registry";
import type { Deps } from "../deps";
import { activeTextToSpeech, namedTextToSpeech, whyUnusable } from "./settings";

export interface SpeakRequest {
  text: string;
  chatId?: string;
  chatMessageId?: string;
  /** The chatflow's `textToSpeech` setting, when the request names a chatflow (its caller checked by the route). */
  flow?: { id: string; textToSpeech: string | null };
  /** Without a chatflow: the provider and its settings, as the studio's dialog sends them. */
  provider?: string;
  credentialId?: string;
  voice?: string;
  model?: string;
}

/**
 * Speech in progress in this isolate, by chatflow, chat and message: what POST /text-to-speech/abort
 * stops. As with PUT /chatmessage/abort (services/runs/in-flight.ts), the abort request only raises a
 * flag: one request may not touch another's I/O, so a timer of the speaking request sees it and stops.
 */
const speaking = new Map<string, { stop: boolean }>();
const POLL_MS = 50;
const keyOf = (flowId: string | undefined, chatId: string | undefined, messageId: string | undefined) =>
  `${flowId ?? ""}\u0000${chatId ?? ""}\u0000${messageId ?? ""}`;

/** Stops that message's speech; true when it was in progress here. */
export function abortSpeech(flowId: string, chatId: string, chatMessageId: string): boolean {
  const flag = speaking.get(keyOf(flowId, chatId, chatMessageId));
  if (flag) flag.stop = true;
  return !!flag;
}

function chosen(deps: Deps<"env">, request: SpeakRequest): { provider: TextToSpeechProvider; config: SpeechConfig } {
  if (request.flow) {
    const found = activeTextToSpeech(request.flow.textToSpeech);
    const why = whyUnusable("textToSpeech", found, deps.env);
    if (why || !found?.provider) throw fail("INVALID_INPUT", why ?? "Text to speech is not configured for this chatflow");
    return { provider: found.provider, config: found.config };
  }
  const provider = namedTextToSpeech(request.provider, deps.env);
  const config: SpeechConfig = { credentialId: request.credentialId, voice: request.voice, model: request.model };
  const why = provider.unusable(config, deps.env);
  if (why) throw fail("MISSING_CREDENTIAL", why);
  return { provider, config };
}

const FRAME_BYTES = 16 * 1024;
const encoder = new TextEncoder();
const frame = (event: string, data: Record<string, unknown>) =>
  encoder.encode(`event: ${event}\ndata: ${JSON.stringify({ event, data })}\n\n`);

function base64Of(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The event stream of the spoken text; rejects (before any frame) when no provider can speak it. */
export async function speak(deps: Deps<"env" | "getCredential">, request: SpeakRequest): Promise<ReadableStream<Uint8Array>> {
  const { provider, config } = chosen(deps, request);
  const key = keyOf(request.flow?.id, request.chatId, request.chatMessageId);
  const speakingBefore = speaking.get(key);
  if (speakingBefore) speakingBefore.stop = true; // the same message asked again: the earlier one stops
  const flag = { stop: false };
  speaking.set(key, flag);
  const controller = new AbortController();
  const timer = setInterval(() => flag.stop && controller.abort(), POLL_MS);
  const release = () => {
    clearInterval(timer);
    if (speaking.get(key) === flag) speaking.delete(key);
  };
  let audio: ReadableStream<Uint8Array>;
  let format: string;
  try {
    ({ body: audio, format } = await provider.speak(request.text, config, { ...deps, signal: controller.signal }));
  } catch (err) {
    release();
    throw err;
  }
  const chatMessageId = request.chatMessageId ?? "";
  const reader = audio.getReader();
  let open = true;
  return new ReadableStream<Uint8Array>({
    async start(out) {
      // After the listener cancelled, frames go nowhere (enqueue would throw).
      const send = (bytes: Uint8Array) => open && out.enqueue(bytes);
      send(frame("tts_start", { chatMessageId, format }));
      // A read pending when the speech is stopped may never settle (the provider's body is cut): race it.
      const stopped = new Promise<never>((_, reject) => {
        const onAbort = () => {
          reader.cancel().catch(() => {});
          reject(new Error("stopped"));
        };
        if (controller.signal.aborted) onAbort();
        else controller.signal.addEventListener("abort", onAbort, { once: true });
      });
      stopped.catch(() => {});
      try {
        for (;;) {
          const { done, value } = await Promise.race([reader.read(), stopped]);
          if (done) break;
          for (let i = 0; i < value.byteLength; i += FRAME_BYTES) {
            send(frame("tts_data", { chatMessageId, audioChunk: base64Of(value.subarray(i, i + FRAME_BYTES)) }));
          }
        }
        send(frame("tts_end", { chatMessageId }));
      } catch (err) {
        const message = controller.signal.aborted ? undefined : err instanceof Error ? err.message : String(err);
        send(message ? frame("tts_error", { chatMessageId, error: message }) : frame("tts_abort", { chatMessageId }));
      } finally {
        release();
        if (open) out.close();
        open = false;
      }
    },
    cancel() {
      // The listener went away (the page's own stop, a closed tab): the provider call ends too.
      open = false;
      controller.abort();
    },
  });
}

/** The voices of a provider (`provider`, else Workers AI when bound) with the credential the studio's dialog names. */
export async function listVoices(
  deps: Deps<"env" | "getCredential">,
  query: { provider?: string; credentialId?: string; model?: string },
): Promise<Voice[]> {
  const provider = namedTextToSpeech(str(query.provider), deps.env);
  const config: SpeechConfig = { credentialId: query.credentialId, model: query.model };
  const why = provider.unusable(config, deps.env);
  if (why) throw fail("MISSING_CREDENTIAL", why);
  return provider.voices(config, deps);
}
