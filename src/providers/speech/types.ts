// Speech providers: speech to text (a chatflow's `speechToText`) and text to speech (its
// `textToSpeech`), Flowise's provider names as the keys of those configs. Each provider is one
// entry in its registry (registry.ts); the services (src/services/speech/) pick the active one.
import type { ProviderDeps } from "../types";

/** One recorded or uploaded audio file. */
export interface AudioClip {
  bytes: Uint8Array;
  /** Its media type (audio/webm, audio/mp4, audio/ogg, audio/wav, audio/mpeg). */
  mime: string;
  name: string;
}

/** A provider's entry in the chatflow's config ({status, credentialId, model, voice, language, …}). */
export type SpeechConfig = Record<string, unknown>;

export type SpeechDeps = ProviderDeps;

export interface SpeechProviderBase {
  /** The config key (Flowise's: openAIWhisper, openai, elevenlabs; edgeflow's cloudflareWorkersAI). */
  name: string;
  label: string;
  /** Why this provider cannot run with this config and deployment (no binding, no credential), or undefined when it can. */
  unusable(config: SpeechConfig, env: SpeechDeps["env"]): string | undefined;
}

export interface SpeechToTextProvider extends SpeechProviderBase {
  transcribe(clip: AudioClip, config: SpeechConfig, deps: SpeechDeps): Promise<string>;
}

/** Audio as it arrives from the provider. */
export interface SpokenAudio {
  /** Flowise's `tts_start` format (the studio and the widget play mp3 through MediaSource). */
  format: string;
  body: ReadableStream<Uint8Array>;
}

export interface Voice {
  id: string;
  name: string;
  category?: string;
}

export interface TextToSpeechProvider extends SpeechProviderBase {
  speak(text: string, config: SpeechConfig, deps: SpeechDeps): Promise<SpokenAudio>;
  voices(config: SpeechConfig, deps: SpeechDeps): Promise<Voice[]>;
}
