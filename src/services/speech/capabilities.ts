// What a chatflow's chat may do with speech, for /chatflows-uploads/{id} and /public-chatbotConfig/{id}:
// each true only when its active provider is one edgeflow has, usable on this deployment (Workers AI
// needs the AI binding) and its credential, when it names one, is stored.
import type { Deps } from "../deps";
import { activeSpeechToText, activeTextToSpeech, isUsable } from "./settings";

export interface SpeechSettings {
  speechToText: string | null;
  textToSpeech: string | null;
}

export async function speechCapabilities(deps: Deps<"db" | "env">, flow: SpeechSettings) {
  const [isSpeechToTextEnabled, isTTSEnabled] = await Promise.all([
    isUsable(deps, "speechToText", activeSpeechToText(flow.speechToText)),
    isUsable(deps, "textToSpeech", activeTextToSpeech(flow.textToSpeech)),
  ]);
  return { isSpeechToTextEnabled, isTTSEnabled };
}
