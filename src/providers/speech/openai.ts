// OpenAI's audio API and the services that copy it: POST {base}/audio/transcriptions (multipart:
// file, model, language, prompt, temperature → {text}) for OpenAI Whisper, Groq Whisper and LocalAI;
// POST {base}/audio/speech ({model, voice, input, response_format: "mp3"} → mp3 bytes) for OpenAI TTS.
import { fail } from "../../errors";
import { num, str } from "../../lib/inputs";
import { utf8Length } from "../../lib/utf8";
import { audioBlob, baseUrlOf, callForAudio, callForJson, credentialFor, keyOf, needsCredential } from "./http";
import { oneAfterAnother, speechParts } from "./parts";
import type { AudioClip, SpeechConfig, SpeechDeps, SpeechToTextProvider, TextToSpeechProvider, Voice } from "./types";
import { uploadFileOf } from "./upload-file";

interface WhisperService {
  name: string;
  label: string;
  credentialField?: string;
  defaultModel: string;
  /** The base URL: the config's, the credential's, a var, the service's own (undefined: the config must name one). */
  base(config: SpeechConfig, credential: Record<string, unknown>, env: SpeechDeps["env"]): { url: string; field: string };
  extra?: Record<string, string>;
  /** The largest request the service takes, in bytes: over it, a 413 here rather than its refusal as a 502. */
  maxBytes?: number;
}

const MB = 1024 * 1024;
/** The multipart body's own bytes around the file and the small fields (boundaries, part headers). */
const FORM_OVERHEAD = 2048;

/** The form's text fields: model, then language, prompt and temperature when set, then the service's own. */
function formFields(service: WhisperService, config: SpeechConfig): Array<[string, string]> {
  const fields: Array<[string, string]> = [["model", str(config.model) ?? service.defaultModel]];
  for (const name of ["language", "prompt"]) {
    const value = str(config[name]);
    if (value) fields.push([name, value]);
  }
  const temperature = num(config.temperature);
  if (temperature !== undefined) fields.push(["temperature", String(temperature)]);
  return [...fields, ...Object.entries(service.extra ?? {})];
}

/** A 413 naming the service's limit when the request would be over it (a recording within MAX_AUDIO_MB may be). */
function checkSize(service: WhisperService, clip: AudioClip, fields: Array<[string, string]>): void {
  const text = fields.reduce((n, [k, v]) => n + k.length + utf8Length(v), 0);
  if (!service.maxBytes || clip.bytes.byteLength + text + FORM_OVERHEAD <= service.maxBytes) return;
  const limit = `${service.label}'s upload limit of ${service.maxBytes / MB} MB`;
  throw fail("LIMIT_EXCEEDED", `uploads: the recording ${clip.name} is ${(clip.bytes.byteLength / MB).toFixed(1)} MB, over ${limit}`);
}

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
      const fields = formFields(service, config);
      checkSize(service, clip, fields);
      const file = uploadFileOf(clip); // a name and type the service takes, whatever the client called it
      const answer = await callForJson<{ text?: unknown }>({
        provider: service.label,
        url: `${base.url}/audio/transcriptions`,
        field: base.field,
        deps,
        init: () => {
          const form = new FormData();
          form.append("file", audioBlob(clip.bytes, file.type), file.name);
          for (const [k, v] of fields) form.append(k, v);
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
  // "The maximum request size is 25 MiB" (OpenAI's Audio API FAQ): past it a 413 on the bytes read.
  maxBytes: 25 * MB,
});

export const groqWhisper = whisper({
  name: "groqWhisper",
  label: "Groq Whisper",
  credentialField: "groqApiKey",
  defaultModel: "whisper-large-v3",
  base: serviceBase("groqApi", "GROQ_BASE_URL", "https://api.groq.com/openai/v1", "Groq endpoint"),
  extra: { response_format: "json" },
  // "File uploads are limited to 25 MB" (Groq's speech-to-text docs; the free tier's limit).
  maxBytes: 25 * MB,
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

const OPENAI_VOICES = ["alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer", "verse", "marin", "cedar"];
/** "The maximum length is 4096 characters" (createSpeech's `input`): a longer text is spoken in parts (parts.ts). */
const OPENAI_TTS_MAX_CHARS = 4096;

export const openAITextToSpeech: TextToSpeechProvider = {
  name: "openai",
  label: "OpenAI TTS",
  unusable: needsCredential("OpenAI TTS"),
  async speak(text: string, config: SpeechConfig, deps: SpeechDeps) {
    const credential = await credentialFor(config, deps, "OpenAI TTS");
    const key = keyOf(credential, "openAIApiKey", "OpenAI TTS");
    const base = openAIBase(config, credential, deps.env);
    const say = (input: string) => {
      const body = JSON.stringify({
        model: str(config.model) ?? "gpt-4o-mini-tts",
        voice: str(config.voice) ?? "alloy",
        input,
        response_format: "mp3",
      });
      return callForAudio({
        provider: "OpenAI TTS",
        url: `${base.url}/audio/speech`,
        field: base.field,
        deps,
        init: () => ({ method: "POST", headers: { Authorization: `Bearer ${key}`, "content-type": "application/json" }, body }),
      });
    };
    // The first part is asked for now, so that a refusal is still an error answer, not a broken stream.
    const [first, ...rest] = speechParts(text, OPENAI_TTS_MAX_CHARS);
    const audio = await say(first ?? text);
    const later = rest.map((part) => () => say(part));
    return { format: "mp3", body: later.length ? oneAfterAnother(audio, later) : audio };
  },
  async voices(): Promise<Voice[]> {
    return OPENAI_VOICES.map((id) => ({ id, name: id[0].toUpperCase() + id.slice(1) }));
  },
};
