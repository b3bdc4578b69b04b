// AssemblyAI: the audio uploaded (POST {base}/v2/upload, raw bytes → {upload_url}), a transcript
// asked for (POST {base}/v2/transcript {audio_url, speech_models} → {id}), then read until it is
// `completed` (its text) or `error` (GET {base}/v2/transcript/{id}), within one deadline. The base is
// the credential's basePath, else ASSEMBLYAI_BASE_URL, else AssemblyAI's.
import { fail } from "../../errors";
import { DEFAULT_TIMEOUT_MS } from "../../lib/run-control";
import { pause } from "../../lib/pace";
import { baseUrlOf, callForJson, credentialFor, keyOf, needsCredential } from "./http";
import type { AudioClip, SpeechConfig, SpeechDeps, SpeechToTextProvider } from "./types";

const LABEL = "AssemblyAI";
const POLL_MS = 1000;
// AssemblyAI now refuses a transcript request without `speech_models` (400: "must be a non-empty
// list"), and the singular `speech_model` as deprecated. The list is in priority order (AssemblyAI
// routes to the next model when one cannot take the audio, e.g. its language): these two are the ones
// its own refusal of an older model names.
const SPEECH_MODELS = ["universal-3-5-pro", "universal-2"];

interface Transcript {
  id?: unknown;
  status?: unknown;
  text?: unknown;
  error?: unknown;
}

export const assemblyAiTranscribe: SpeechToTextProvider = {
  name: "assemblyAiTranscribe",
  label: LABEL,
  unusable: needsCredential(LABEL),
  async transcribe(clip: AudioClip, config: SpeechConfig, deps: SpeechDeps): Promise<string> {
    const credential = await credentialFor(config, deps, LABEL);
    const key = keyOf(credential, "assemblyAIApiKey", LABEL);
    const base = baseUrlOf(
      [
        [credential.basePath, "assemblyAIApi credential basePath"],
        [deps.env.ASSEMBLYAI_BASE_URL, "ASSEMBLYAI_BASE_URL"],
      ],
      "https://api.assemblyai.com",
      `${LABEL} endpoint`,
    );
    const call = <T>(path: string, init: () => RequestInit) =>
      callForJson<T>({ provider: LABEL, url: `${base.url}${path}`, field: base.field, deps, init });
    const auth = { authorization: key };
    const upload = await call<{ upload_url?: unknown }>("/v2/upload", () => ({
      method: "POST",
      headers: { ...auth, "content-type": "application/octet-stream" },
      body: clip.bytes as BodyInit,
    }));
    if (typeof upload.upload_url !== "string") throw fail("MODEL_FAILED", `${LABEL} answered the upload without upload_url`);
    const body = JSON.stringify({ audio_url: upload.upload_url, speech_models: SPEECH_MODELS, speaker_labels: false });
    let transcript = await call<Transcript>("/v2/transcript", () => ({
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body,
    }));
    const id = typeof transcript.id === "string" ? encodeURIComponent(transcript.id) : undefined;
    if (!id) throw fail("MODEL_FAILED", `${LABEL} answered the transcript request without an id`);
    const until = Date.now() + DEFAULT_TIMEOUT_MS;
    while (transcript.status !== "completed") {
      if (transcript.status === "error")
        throw fail("MODEL_FAILED", `${LABEL} could not transcribe: ${String(transcript.error ?? "no details")}`);
      if (Date.now() > until) throw fail("MODEL_TIMEOUT", `${LABEL} did not finish the transcript within ${DEFAULT_TIMEOUT_MS} ms`);
      await pause(POLL_MS, deps.signal);
      if (deps.signal?.aborted) throw fail("ABORTED", "The run was aborted");
      transcript = await call<Transcript>(`/v2/transcript/${id}`, () => ({ method: "GET", headers: auth }));
    }
    return typeof transcript.text === "string" ? transcript.text.trim() : "";
  },
};
