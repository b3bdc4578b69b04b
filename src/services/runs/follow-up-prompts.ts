// Follow-up prompts (the studio's Configuration → Follow-up Prompts, Flowise's generateFollowUpPrompts):
// after a run's answer, when its flow's `followUpPrompts` config is on, the selected provider's model
// is asked for `{questions: string[]}` and the questions (a JSON string, as Flowise stores them) go on
// the API message, the JSON answer and the stream's metadata frame. The model is one of our chat
// model registry's, its credential read as the run reads its nodes' ones, the answer taken by a
// forced function call (or a JSON object in text). Never fails the answer: a bad config, a provider
// we lack or a failing model is logged and gives none. HTTP-free.
import { HumanMessage } from "@langchain/core/messages";
import { z } from "zod";
import { invokeStructured } from "../../engine/agentflow/structured";
import { isObject, str } from "../../lib/inputs";
import { errorText, redactError } from "../../lib/redact";
import { buildChatModel } from "../../providers/chat/registry";
import type { ProviderEnv } from "../../providers/types";
import type { RunContext } from "../../engine";
import type { Deps } from "../deps";
import type { RunBase } from "./base";
import type { CredentialReader } from "./credentials";

/** Flowise's default prompt (the dialog's, filled in on save when left empty). */
export const DEFAULT_FOLLOW_UP_PROMPT =
  "Given the following conversations: {history}. Please help me predict the three most likely questions that human would ask " +
  "and keeping each question short and concise.";

/** How long the follow-up call may hold the answer (the run's own time limit applies as well). */
export const FOLLOW_UP_TIMEOUT_MS = 30_000;

interface Provider {
  /** Our chat model registry's node name. */
  model: string;
  /** The dialog's default temperature (Flowise's UI saves it when left empty). */
  temperature: number;
  /** Inputs from the provider's config besides credential, model name and temperature. */
  inputs?: (config: Record<string, unknown>) => Record<string, unknown>;
}

// Flowise's providers by the names its dialog saves (FollowUpPromptProvider), each through the chat
// model of the same node: the credential names are those nodes' (anthropicApi, azureOpenAIApi,
// googleGenerativeAI, mistralAIApi, openAIApi, groqApi; Ollama takes none, only its base URL).
const PROVIDERS: Record<string, Provider> = {
  chatOpenAI: { model: "chatOpenAI", temperature: 0.9 },
  azureChatOpenAI: { model: "azureChatOpenAI", temperature: 0.9 },
  chatAnthropic: { model: "chatAnthropic", temperature: 0.9 },
  chatGoogleGenerativeAI: { model: "chatGoogleGenerativeAI", temperature: 0.9 },
  chatMistralAI: { model: "chatMistralAI", temperature: 0.9 },
  groqChat: { model: "groqChat", temperature: 0.9 },
  ollama: { model: "chatOllama", temperature: 0.7, inputs: (c) => ({ baseUrl: str(c.baseUrl) ?? "http://127.0.0.1:11434" }) },
};
// Short names a hand-written config may use for the same providers.
const ALIASES: Record<string, string> = {
  openAI: "chatOpenAI",
  azureOpenAI: "azureChatOpenAI",
  anthropic: "chatAnthropic",
  google: "chatGoogleGenerativeAI",
  mistral: "chatMistralAI",
  groq: "groqChat",
};

const FollowUps = z.object({ questions: z.array(z.string()) }).describe("Generate Follow Up Prompts");

export interface FollowUpAsk {
  /** The flow's `followUpPrompts` column (a JSON string, or null). */
  config: string | null | undefined;
  question: string;
  answer: string;
  providers: ProviderEnv;
  getCredential: CredentialReader;
  /** The run's signal: a stopped run asks nothing more. */
  signal: AbortSignal;
  /** Secrets the log line is scrubbed of (the run's). */
  secrets?: Iterable<string>;
  /** For the log line. */
  requestId?: string;
}

interface Chosen {
  provider: Provider;
  settings: Record<string, unknown>;
}

/** The config's chosen provider and its settings, when follow-up prompts are on; undefined otherwise. */
export function followUpConfigOf(raw: string | null | undefined): Chosen | undefined {
  if (!raw) return undefined;
  let config: unknown;
  try {
    config = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isObject(config) || (config.status !== true && config.status !== "true")) return undefined;
  const selected = str(config.selectedProvider);
  if (!selected) return undefined;
  const provider = PROVIDERS[ALIASES[selected] ?? selected];
  const settings = config[selected];
  return provider && isObject(settings) ? { provider, settings } : undefined;
}

/** The run's exchange as the prompt's {history}. */
const historyOf = (question: string, answer: string) => (question ? `Human: ${question}\nAI: ${answer}` : `AI: ${answer}`);

/** The run's signal, and the follow-up call's own time limit. */
function limited(signal: AbortSignal): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const stop = () => controller.abort(signal.reason);
  if (signal.aborted) stop();
  else signal.addEventListener("abort", stop, { once: true });
  const timer = setTimeout(() => controller.abort(new Error("follow-up prompts timed out")), FOLLOW_UP_TIMEOUT_MS);
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", stop);
    },
  };
}

/**
 * The follow-up questions for this exchange as the JSON string Flowise stores (`["…","…"]`), or
 * undefined: off, misconfigured, no questions, or the model failed (logged). Never throws.
 */
export async function generateFollowUpPrompts(ask: FollowUpAsk): Promise<string | undefined> {
  const chosen = followUpConfigOf(ask.config);
  if (!chosen || ask.signal.aborted) return undefined;
  const { provider, settings } = chosen;
  const prompt = (str(settings.prompt) ?? DEFAULT_FOLLOW_UP_PROMPT).replaceAll("{history}", historyOf(ask.question, ask.answer));
  const temperature = Number.parseFloat(`${settings.temperature ?? ""}`);
  const call = limited(ask.signal);
  try {
    const model = await buildChatModel(
      provider.model,
      {
        ...provider.inputs?.(settings),
        ...(str(settings.credentialId) ? { credential: str(settings.credentialId) } : {}),
        ...(str(settings.modelName) ? { modelName: str(settings.modelName) } : {}),
        temperature: Number.isFinite(temperature) ? temperature : provider.temperature,
        streaming: false,
      },
      { env: ask.providers, getCredential: ask.getCredential, signal: call.signal },
    );
    const { value } = await invokeStructured(model, [new HumanMessage(prompt)], FollowUps, "Follow-up prompts", call.signal, {
      name: "follow_up_prompts",
      description: "Generate Follow Up Prompts",
    });
    const questions = (value.questions as string[]).map((q) => q.trim()).filter(Boolean);
    return questions.length ? JSON.stringify(questions) : undefined;
  } catch (err) {
    // The answer stands without them: Flowise would fail the whole prediction here; we only log.
    console.error(`[${ask.requestId ?? "-"}] follow-up prompts failed: ${errorText(redactError(err, ask.secrets))}`);
    return undefined;
  } finally {
    call.done();
  }
}

/** What a finished run (chatflow or agentflow) gives the follow-up call. */
export interface AskingRun extends Pick<RunBase, "flow" | "chatType" | "getCredential" | "secrets" | "controller"> {
  ctx: Pick<RunContext, "flows">;
  deps: Deps<"runtime" | "requestId">;
}

/**
 * Whether a run asks for follow-up questions: its flow has them on and a person reads its answer in
 * a chat — the API and widget (EXTERNAL), the studio's test chat (INTERNAL) — not a flow called by
 * another flow (Execute Flow, ChatflowTool), MCP, the OpenAI API, webhooks or schedules, whose
 * callers have no use for them (and would pay a model call each).
 */
export function asksFollowUps(run: AskingRun): boolean {
  const chats = run.chatType === "EXTERNAL" || run.chatType === "INTERNAL";
  return chats && !run.ctx.flows?.callStack.length && followUpConfigOf(run.flow.followUpPrompts) !== undefined;
}

/** A run's follow-up questions (the JSON string to store), when it asks for them (asksFollowUps). */
export function followUpsFor(run: AskingRun, question: string, answer: string): Promise<string | undefined> {
  if (!asksFollowUps(run)) return Promise.resolve(undefined);
  return generateFollowUpPrompts({
    config: run.flow.followUpPrompts,
    question,
    answer,
    providers: run.deps.runtime.providers,
    getCredential: run.getCredential,
    signal: run.controller.signal,
    secrets: run.secrets,
    requestId: run.deps.requestId,
  });
}
