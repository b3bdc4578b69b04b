// Speech to text before a run: a prediction's audio uploads (the widget's microphone, the studio's
// recorder: type `audio`, or any upload of an audio/* type) are checked against the audio limits
// (MAX_AUDIO_MB → 413, MAX_AUDIO_SECONDS → 400) and heard by the chatflow's active provider; the
// transcript becomes the run's question, and so the stored user message. HTTP-free.
import { configOf } from "../../config";
import { badRequest, fail, payloadTooLarge } from "../../errors";
import { type AudioClip, audioSeconds } from "../../providers/speech/registry";
import type { Deps } from "../deps";
import { activeSpeechToText, whyUnusable } from "./settings";

/** An upload as the run door holds it (services/runs/uploads.ts UploadInput). */
export interface AudioUpload {
  type: string;
  name: string;
  mime?: string;
  bytes?: Uint8Array;
}

export const isAudioUpload = (u: AudioUpload): boolean => u.type !== "url" && (u.type === "audio" || !!u.mime?.startsWith("audio/"));

const MB = 1024 * 1024;

/** The limits, checked before any provider is called: size (413) and length (400), each named. */
export function checkAudioLimits(env: Deps<"env">["env"], clip: AudioClip): void {
  const { MAX_AUDIO_MB, MAX_AUDIO_SECONDS } = configOf(env);
  if (clip.bytes.byteLength > MAX_AUDIO_MB * MB) {
    const bytes = clip.bytes.byteLength;
    const mb = bytes < MB ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / MB).toFixed(1)} MB`;
    throw payloadTooLarge(`uploads: the recording ${clip.name} is ${mb}, over the audio size limit of ${MAX_AUDIO_MB} MB (MAX_AUDIO_MB)`);
  }
  const seconds = audioSeconds(clip.bytes);
  if (seconds !== undefined && seconds > MAX_AUDIO_SECONDS) {
    const limit = `the audio length limit of ${MAX_AUDIO_SECONDS} s (MAX_AUDIO_SECONDS)`;
    throw badRequest(`uploads: the recording ${clip.name} lasts ${Math.round(seconds)} s, over ${limit}`);
  }
}

export interface HearRequest {
  /** The chatflow's `speechToText` setting (its JSON text). */
  speechToText: string | null;
  uploads: AudioUpload[];
  question: string | undefined;
  getCredential(id: string): Promise<Record<string, unknown>>;
  signal?: AbortSignal;
}

/**
 * The run's question once its recordings are heard: the transcripts joined (undefined when there is
 * no recording). A recording with no provider able to hear it is a 400 saying what to configure.
 */
export async function hearRecordings(deps: Deps<"env">, request: HearRequest): Promise<string | undefined> {
  const clips: AudioClip[] = request.uploads
    .filter(isAudioUpload)
    .map((u) => ({ bytes: u.bytes ?? new Uint8Array(), mime: u.mime || "audio/webm", name: u.name }));
  if (!clips.length) return undefined;
  for (const clip of clips) checkAudioLimits(deps.env, clip);
  const found = activeSpeechToText(request.speechToText);
  const why = whyUnusable("speechToText", found, deps.env);
  if (why || !found?.provider) throw fail("INVALID_INPUT", `The prediction carries a recording. ${why ?? "No provider can hear it"}`);
  const providerDeps = { env: deps.env, getCredential: request.getCredential, signal: request.signal };
  const heard: string[] = [];
  for (const clip of clips) heard.push(await found.provider.transcribe(clip, found.config, providerDeps));
  const transcript = heard.filter(Boolean).join(" ").trim();
  if (transcript) return transcript;
  if (request.question?.trim()) return request.question;
  throw fail("INVALID_INPUT", `${found.provider.label} heard no speech in the recording`);
}
