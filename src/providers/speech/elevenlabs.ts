// ElevenLabs over its HTTP API: POST {base}/v1/text-to-speech/{voice}/stream ({text, model_id} with
// the xi-api-key header → mp3 bytes as they are made) and GET {base}/v1/voices ({voices: [{voice_id,
// name, category}]}). The base is the credential's basePath, else ELEVENLABS_BASE_URL, else ElevenLabs'.
import { str } from "../../lib/inputs";
import { baseUrlOf, callForAudio, callForJson, credentialFor, keyOf, needsCredential } from "./http";
import type { SpeechConfig, SpeechDeps, TextToSpeechProvider, Voice } from "./types";

const LABEL = "ElevenLabs TTS";
const DEFAULT_VOICE = "21m00Tcm4TlvDq8ikWAM";

async function endpoint(config: SpeechConfig, deps: SpeechDeps) {
  const credential = await credentialFor(config, deps, LABEL);
  const key = keyOf(credential, "elevenLabsApiKey", LABEL);
  const base = baseUrlOf(
    [
      [credential.basePath, "elevenLabsApi credential basePath"],
      [deps.env.ELEVENLABS_BASE_URL, "ELEVENLABS_BASE_URL"],
    ],
    "https://api.elevenlabs.io",
    "ElevenLabs endpoint",
  );
  return { key, base };
}

export const elevenLabsTextToSpeech: TextToSpeechProvider = {
  name: "elevenlabs",
  label: LABEL,
  unusable: needsCredential(LABEL),
  async speak(text: string, config: SpeechConfig, deps: SpeechDeps) {
    const { key, base } = await endpoint(config, deps);
    const voice = encodeURIComponent(str(config.voice) ?? DEFAULT_VOICE);
    const body = JSON.stringify({ text, model_id: str(config.model) ?? "eleven_multilingual_v2" });
    const audio = await callForAudio({
      provider: LABEL,
      url: `${base.url}/v1/text-to-speech/${voice}/stream?output_format=mp3_44100_128`,
      field: base.field,
      deps,
      init: () => ({ method: "POST", headers: { "xi-api-key": key, "content-type": "application/json", accept: "audio/mpeg" }, body }),
    });
    return { format: "mp3", body: audio };
  },
  async voices(config: SpeechConfig, deps: SpeechDeps): Promise<Voice[]> {
    const { key, base } = await endpoint(config, deps);
    const answer = await callForJson<{ voices?: unknown }>({
      provider: LABEL,
      url: `${base.url}/v1/voices`,
      field: base.field,
      deps,
      init: () => ({ method: "GET", headers: { "xi-api-key": key } }),
    });
    const list = Array.isArray(answer.voices) ? (answer.voices as Record<string, unknown>[]) : [];
    return list
      .filter((v) => typeof v?.voice_id === "string")
      .map((v) => ({
        id: String(v.voice_id),
        name: String(v.name ?? v.voice_id),
        ...(v.category ? { category: String(v.category) } : {}),
      }));
  },
};
