// The speech providers, one entry each, by the name a chatflow's config uses as its key: Flowise's
// speech to text (openAIWhisper, assemblyAiTranscribe, localAISTT, azureCognitive, groqWhisper) and
// text to speech (openai, elevenlabs), and edgeflow's cloudflareWorkersAI for both. Adding one is
// one entry here and its file.
import { assemblyAiTranscribe } from "./assemblyai";
import { azureCognitive } from "./azure";
import { elevenLabsTextToSpeech } from "./elevenlabs";
import { groqWhisper, localAISTT, openAITextToSpeech, openAIWhisper } from "./openai";
import type { SpeechToTextProvider, TextToSpeechProvider } from "./types";
import { workersAISpeechToText, workersAITextToSpeech } from "./workers-ai";

const byName = <T extends { name: string }>(list: T[]): ReadonlyMap<string, T> => new Map(list.map((p) => [p.name, p]));

export const SPEECH_TO_TEXT: ReadonlyMap<string, SpeechToTextProvider> = byName([
  workersAISpeechToText,
  openAIWhisper,
  assemblyAiTranscribe,
  localAISTT,
  azureCognitive,
  groqWhisper,
]);

export const TEXT_TO_SPEECH: ReadonlyMap<string, TextToSpeechProvider> = byName([
  workersAITextToSpeech,
  openAITextToSpeech,
  elevenLabsTextToSpeech,
]);

export type {
  AudioClip,
  SpeechConfig,
  SpeechDeps,
  SpeechProviderBase,
  SpeechToTextProvider,
  SpokenAudio,
  TextToSpeechProvider,
  Voice,
} from "./types";
export { SPEECH_NEEDS_AI, WORKERS_AI } from "./workers-ai";
export { audioSeconds } from "./duration";
