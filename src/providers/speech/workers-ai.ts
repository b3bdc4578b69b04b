// Workers AI speech through the AI binding: Whisper (`@cf/openai/whisper-large-v3-turbo`, audio as
// base64 → {text}) and Deepgram Nova-3 (`@cf/deepgram/nova-3`, audio as a body with its type →
// results.channels[0].alternatives[0].transcript) hear; Deepgram Aura (`@cf/deepgram/aura-1`, text
// → mp3 bytes) and MeloTTS (`@cf/myshell-ai/melotts`, prompt → {audio: base64 mp3}) speak.
// Locally there is no Workers AI: the binding is absent and the message says what to configure.
import { ApiError, fail } from "../../errors";
import { isObject, str } from "../../lib/inputs";
import { DEFAULT_TIMEOUT_MS, Deadline, withOneRetry } from "../../lib/run-control";
import type { AiRunner } from "../chat/workers-ai";
import type { AudioClip, SpeechConfig, SpeechDeps, SpeechToTextProvider, TextToSpeechProvider, Voice } from "./types";

export const WORKERS_AI = "cloudflareWorkersAI";
export const WHISPER = "@cf/openai/whisper-large-v3-turbo";
export const NOVA_3 = "@cf/deepgram/nova-3";
export const AURA_1 = "@cf/deepgram/aura-1";
export const MELOTTS = "@cf/myshell-ai/melotts";

export const SPEECH_NEEDS_AI =
  "Speech needs Workers AI (the AI binding, on Cloudflare) or a configured provider: this deployment has no AI binding " +
  "(locally there is none), so choose openAIWhisper, groqWhisper, localAISTT, azureCognitive or assemblyAiTranscribe to hear, " +
  "openai or elevenlabs to speak, with a credential";

// Aura's audio as Cloudflare's docs call it: the raw response, its body the mp3 as it is made.
const RAW = { returnRawResponse: true };
const AURA_SPEAKERS = ["angus", "asteria", "arcas", "orion", "orpheus", "athena", "luna", "zeus", "perseus", "helios", "hera", "stella"];
const MELO_LANGUAGES = ["en", "es", "fr", "zh", "ja", "ko"];

const aiOf = (deps: SpeechDeps): AiRunner => {
  const ai = deps.env.AI as AiRunner | undefined;
  if (!ai || typeof ai.run !== "function") throw fail("MISSING_CREDENTIAL", SPEECH_NEEDS_AI);
  return ai;
};

const unusable = (_config: SpeechConfig, env: SpeechDeps["env"]) => (env.AI ? undefined : SPEECH_NEEDS_AI);

/** One binding call under a deadline, retried once when it failed for a reason that is not the caller's. */
function runModel(deps: SpeechDeps, model: string, inputs: Record<string, unknown>, options?: Record<string, unknown>): Promise<unknown> {
  const ai = aiOf(deps);
  return withOneRetry(
    async () => {
      const deadline = new Deadline(DEFAULT_TIMEOUT_MS, deps.signal);
      try {
        return await deadline.race(ai.run(model, inputs, options));
      } catch (err) {
        throw deadline.failure(err, `Workers AI (${model})`);
      } finally {
        deadline.done();
      }
    },
    () => false,
    deps.signal,
  );
}

function base64Of(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

const modelOf = (config: SpeechConfig, allowed: string[], fallback: string): string => {
  const model = str(config.model) ?? fallback;
  if (!allowed.includes(model)) throw fail("UNKNOWN_NODE", `Workers AI speech model ${model} is not one of ${allowed.join(", ")}`);
  return model;
};

export const workersAISpeechToText: SpeechToTextProvider = {
  name: WORKERS_AI,
  label: "Cloudflare Workers AI",
  unusable,
  async transcribe(clip: AudioClip, config: SpeechConfig, deps: SpeechDeps): Promise<string> {
    const model = modelOf(config, [WHISPER, NOVA_3], WHISPER);
    const language = str(config.language);
    if (model === NOVA_3) {
      const body = new Blob([clip.bytes as unknown as ArrayBuffer]).stream();
      const out = await runModel(deps, model, { audio: { body, contentType: clip.mime }, ...(language ? { language } : {}) });
      const channels = isObject(out) && isObject(out.results) && Array.isArray(out.results.channels) ? out.results.channels : [];
      const alt = isObject(channels[0]) && Array.isArray(channels[0].alternatives) ? channels[0].alternatives[0] : undefined;
      if (!isObject(alt) || typeof alt.transcript !== "string")
        throw fail("MODEL_FAILED", `Workers AI (${model}) answered without a transcript`);
      return alt.transcript.trim();
    }
    const inputs: Record<string, unknown> = { audio: base64Of(clip.bytes) };
    if (language) inputs.language = language;
    if (str(config.prompt)) inputs.initial_prompt = str(config.prompt);
    const out = await runModel(deps, model, inputs);
    if (!isObject(out) || typeof out.text !== "string") throw fail("MODEL_FAILED", `Workers AI (${model}) answered without text`);
    return out.text.trim();
  },
};

/** What a text-to-speech model gave: bytes, a stream, a Response, or base64 (MeloTTS's {audio}). */
async function audioOf(out: unknown, model: string): Promise<ReadableStream<Uint8Array>> {
  if (out instanceof ReadableStream) return out as ReadableStream<Uint8Array>;
  if (out instanceof Response) {
    if (!out.ok || !out.body) throw fail("MODEL_FAILED", `Workers AI (${model}) answered ${out.status} without audio`);
    return out.body;
  }
  let bytes: Uint8Array | undefined;
  if (out instanceof Uint8Array) bytes = out;
  else if (out instanceof ArrayBuffer) bytes = new Uint8Array(out);
  else {
    const base64 = typeof out === "string" ? out : isObject(out) && typeof out.audio === "string" ? out.audio : undefined;
    if (base64 !== undefined) {
      try {
        bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      } catch {
        throw fail("MODEL_FAILED", `Workers AI (${model}) answered audio that is not base64`);
      }
    }
  }
  if (!bytes?.length) throw fail("MODEL_FAILED", `Workers AI (${model}) answered without audio`);
  return new Blob([bytes as unknown as ArrayBuffer]).stream();
}

export const workersAITextToSpeech: TextToSpeechProvider = {
  name: WORKERS_AI,
  label: "Cloudflare Workers AI",
  unusable,
  async speak(text: string, config: SpeechConfig, deps: SpeechDeps) {
    const model = modelOf(config, [AURA_1, MELOTTS], AURA_1);
    const voice = str(config.voice);
    try {
      if (model === MELOTTS) {
        const lang = voice && MELO_LANGUAGES.includes(voice) ? voice : "en";
        return { format: "mp3", body: await audioOf(await runModel(deps, model, { prompt: text, lang }), model) };
      }
      const speaker = voice && AURA_SPEAKERS.includes(voice) ? voice : "angus";
      return { format: "mp3", body: await audioOf(await runModel(deps, model, { text, speaker, encoding: "mp3" }, RAW), model) };
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw fail("MODEL_FAILED", `Workers AI (${model}) failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  },
  async voices(config: SpeechConfig): Promise<Voice[]> {
    const model = str(config.model) ?? AURA_1;
    if (model === MELOTTS) return MELO_LANGUAGES.map((id) => ({ id, name: `MeloTTS (${id})` }));
    return AURA_SPEAKERS.map((id) => ({ id, name: id[0].toUpperCase() + id.slice(1) }));
  },
};
