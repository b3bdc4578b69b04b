// A chatflow's speech settings, Flowise's shape: `speechToText` and `textToSpeech` are JSON objects
// keyed by provider name, each {status, credentialId, …}; the one whose status is true is active.
// Two rules of edgeflow's on top: `none` with status true switches speech off (the studio's "None"),
// and cloudflareWorkersAI yields to any other active provider — the studio's dialogs do not list it,
// so choosing a provider there cannot switch it off (docs/speech.md).
import { fail } from "../../errors";
import { isObject, str } from "../../lib/inputs";
import {
  SPEECH_NEEDS_AI,
  SPEECH_TO_TEXT,
  type SpeechConfig,
  type SpeechProviderBase,
  TEXT_TO_SPEECH,
  type TextToSpeechProvider,
  WORKERS_AI,
} from "../../providers/speech/registry";
import type { Deps } from "../deps";

export type SpeechKind = "speechToText" | "textToSpeech";

export interface ActiveSpeech<P> {
  name: string;
  /** Undefined when the name is no provider edgeflow has. */
  provider?: P;
  config: SpeechConfig;
}

function parse(text: string | null | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    const value = JSON.parse(text);
    return isObject(value) ? value : {};
  } catch {
    return {};
  }
}

function active(text: string | null | undefined): { name: string; config: SpeechConfig } | undefined {
  const settings = parse(text);
  if (isObject(settings.none) && settings.none.status === true) return undefined;
  const on = Object.entries(settings).filter(([name, v]) => name !== "none" && isObject(v) && v.status === true);
  const chosen = on.find(([name]) => name !== WORKERS_AI) ?? on[0];
  return chosen ? { name: chosen[0], config: chosen[1] as SpeechConfig } : undefined;
}

const REGISTRY = { speechToText: SPEECH_TO_TEXT, textToSpeech: TEXT_TO_SPEECH } as const;

export function activeSpeechToText(text: string | null | undefined) {
  const found = active(text);
  return found && { ...found, provider: SPEECH_TO_TEXT.get(found.name) };
}

export function activeTextToSpeech(text: string | null | undefined) {
  const found = active(text);
  return found && { ...found, provider: TEXT_TO_SPEECH.get(found.name) };
}

/** The text-to-speech provider a request names (`provider`), else Workers AI when the deployment has it; 400 otherwise. */
export function namedTextToSpeech(name: string | undefined, env: Deps<"env">["env"]): TextToSpeechProvider {
  if (!name) {
    if (!env.AI) throw fail("MISSING_CREDENTIAL", `No text-to-speech provider given. ${SPEECH_NEEDS_AI}`);
    return TEXT_TO_SPEECH.get(WORKERS_AI) as TextToSpeechProvider;
  }
  const provider = TEXT_TO_SPEECH.get(name);
  if (!provider)
    throw fail("UNKNOWN_NODE", `Unknown text-to-speech provider ${name}: edgeflow has ${[...TEXT_TO_SPEECH.keys()].join(", ")}`);
  return provider;
}

/** Why the active provider cannot run (none chosen, unknown, no binding, no credential), or undefined. */
export function whyUnusable(kind: SpeechKind, found: ActiveSpeech<SpeechProviderBase> | undefined, env: Deps<"env">["env"]) {
  const what = kind === "speechToText" ? "Speech to text" : "Text to speech";
  if (!found) return `${what} is not configured for this chatflow: set its ${kind} (docs/speech.md). ${SPEECH_NEEDS_AI}`;
  if (!found.provider) {
    const names = [...REGISTRY[kind].keys()].join(", ");
    return `${what} provider ${found.name} is not one edgeflow has (${names})`;
  }
  return found.provider.unusable(found.config, env);
}

/** Whether the active provider can run: usable, and its credential (when it names one) among the `stored` ids. */
export function isUsable(
  env: Deps<"env">["env"],
  kind: SpeechKind,
  found: ActiveSpeech<SpeechProviderBase> | undefined,
  stored: ReadonlySet<string>,
): boolean {
  if (whyUnusable(kind, found, env) || !found) return false;
  const id = str(found.config.credentialId) ?? str(found.config.credential);
  return !id || stored.has(id);
}
