// OpenAI's audio API and the services that copy it: POST {base}/audio/transcriptions (multipart:
// file, model, language, prompt, temperature → {text}) for OpenAI Whisper, Groq Whisper and LocalAI;
// POST {base}/audio/speech ({model, voice, input, response_format: "mp3"} → mp3 bytes) for OpenAI TTS.
import { fail } from "../../errors";
import { num, str } from "../../lib/inputs";
import { audioBlob, baseUrlOf, callForAudio, callForJson, credentialFor, keyOf, needsCredential } from "./http";
import type { AudioClip, SpeechConfig, SpeechDeps, SpeechToTextProvider, TextToSpeechProvider, Voice } from "./types";

interface WhisperService {
  name: string;
  label: string;
  credentialField?: string;
  defaultModel: string;
  /** The base URL: the config's, the credential's, a var, the service's own (undefined: the config must name one). */
  base(config: SpeechConfig, credential: Record<string, unknown>, env: SpeechDeps["env"]): { url: string; field: string };
  extra?: Record<string, string>;
}

const extensionOf = (mime: string): string =>
  ({ "audio/webm": "webm", "audio/mp4": "m4a", "audio/x-m4a": "m4a", "audio/ogg": "ogg", "audio/wav": "wav", "audio/mpeg": "mp3" })[
    mime.split(";")[0].trim()
  ] ?? "webm";

function whisper(service: WhisperService): SpeechToTextProvider {
  return {
    name: service.name,
    label: service.label,
    unusable: (config) =>
      service.credentialField
        ? needsCredential(service.label)(config)
        : str(config.baseUrl)
          ? undefined
          : `${service.label} needs its baseUrl`,
    async transcribe(clip: AudioClip, config: SpeechConfig, deps: SpeechDeps): Promise<string> {
      const hasCredential = !!(str(config.credentialId) ?? str(config.credential));
      const credential = service.credentialField || hasCredential ? await credentialFor(config, deps, service.label) : {};
      const key = service.credentialField ? keyOf(credential, service.credentialField, service.label) : str(credential.localAIApiKey);
      const base = service.base(config, credential, deps.env);
      const name = /\.\w+$/.test(clip.name) ? clip.name : `audio.${extensionOf(clip.mime)}`;
      const answer = await callForJson<{ text?: unknown }>({
        provider: service.label,
        url: `${base.url}/audio/transcriptions`,
        field: base.field,
        deps,
        init: () => {
          const form = new FormData();
          form.append("file", audioBlob(clip.bytes, clip.mime), name);
          form.append("model", str(config.model) ?? service.defaultModel);
          const language = str(config.language);
          if (language) form.append("language", language);
          const prompt = str(config.prompt);
          if (prompt) form.append("prompt", prompt);
          const temperature = num(config.temperature);
          if (temperature !== undefined) form.append("temperature", String(temperature));
          for (const [k, v] of Object.entries(service.extra ?? {})) form.append(k, v);
          const headers: Record<string, string> = key ? { Authorization: `Bearer ${key}` } : {};
          return { method: "POST", headers, body: form };
        },
      });
      if (typeof answer.text !== "string") throw fail("MODEL_FAILED", `${service.label} answered without text`);
      return answer.text.trim();
    },
  };
}

/** An OpenAI-shaped service's base: the speech config's, the credential's basePath, the env var's, else `fallback`. */
const serviceBase =
  (credentialName: string, envVar: "OPENAI_BASE_URL" | "GROQ_BASE_URL", fallback: string, what: string) =>
  (config: SpeechConfig, credential: Record<string, unknown>, env: SpeechDeps["env"]) =>
    baseUrlOf(
      [
        [config.baseUrl, "speech baseUrl"],
        [credential.basePath, `${credentialName} credential basePath`],
        [env[envVar], envVar],
      ],
      fallback,
      what,
    );

const openAIBase = serviceBase("openAIApi", "OPENAI_BASE_URL", "https://api.openai.com/v1", "OpenAI endpoint");

export const openAIWhisper = whisper({
  name: "openAIWhisper",
  label: "OpenAI Whisper",
  credentialField: "openAIApiKey",
  defaultModel: "whisper-1",
  base: openAIBase,
});

export const groqWhisper = whisper({
  name: "groqWhisper",
  label: "Groq Whisper",
  credentialField: "groqApiKey",
  defaultModel: "whisper-large-v3",
  base: serviceBase("groqApi", "GROQ_BASE_URL", "https://api.groq.com/openai/v1", "Groq endpoint"),
  extra: { response_format: "json" },
});

export const localAISTT = whisper({
  name: "localAISTT",
  label: "LocalAI STT",
  defaultModel: "whisper-1",
  base: (config) => {
    if (!str(config.baseUrl)) throw fail("INVALID_FLOW", "LocalAI STT needs its baseUrl");
    return baseUrlOf([[config.baseUrl, "localAISTT baseUrl"]], "", "localAISTT baseUrl");
  },
});

const OPENAI_VOICES = ["alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer"];

export const openAITextToSpeech: TextToSpeechProvider = {
  name: "openai",
  label: "OpenAI TTS",
  unusable: needsCredential("OpenAI TTS"),
  async speak(text: string, config: SpeechConfig, deps: SpeechDeps) {
    const credential = await credentialFor(config, deps, "OpenAI TTS");
    const key = keyOf(credential, "openAIApiKey", "OpenAI TTS");
    const base = openAIBase(config, credential, deps.env);
    const body = JSON.stringify({
      model: str(config.model) ?? "gpt-4o-mini-tts",
      voice: str(config.voice) ?? "alloy",
      input: text,
      response_format: "mp3",
    });
    const audio = await callForAudio({
      provider: "OpenAI TTS",
      url: `${base.url}/audio/speech`,
      field: base.field,
      deps,
      init: () => ({ method: "POST", headers: { Authorization: `Bearer ${key}`, "content-type": "application/json" }, body }),
    });
    return { format: "mp3", body: audio };
  },
  async voices(): Promise<Voice[]> {
    return OPENAI_VOICES.map((id) => ({ id, name: id[0].toUpperCase() + id.slice(1) }));
  },
};
