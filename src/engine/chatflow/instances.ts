// What the built nodes of each family are, so that families can use each other's instances
// (a chain takes a prompt, a memory, an output parser, moderations, a chat model).
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import { fail } from "../../errors";
import type { PromptTemplates } from "../core/prompting";
import type { ChatTurn } from "../core/types";
import { asList } from "../core/inputs";

export { turnsToMessages, turnsToText } from "../core/turns";
import { turnsToMessages } from "../core/turns";

export interface PromptInstance extends PromptTemplates {
  kind: "prompt";
}

export interface MemoryInstance {
  kind: "memory";
  /** The memory node's label: the run's memoryType. */
  label: string;
  memoryKey: string;
  /** Earlier turns of this session, oldest first (request history first). */
  load(): Promise<ChatTurn[]>;
  messages(): Promise<BaseMessage[]>;
  /** Memories kept outside (Redis): store the exchange after a successful run. */
  save?(question: string, answer: string): Promise<void>;
}

/** A memory that reads its turns once per run (`read`), as messages on demand; `save` for one kept outside. */
export function memoryInstance(
  label: string,
  memoryKey: string,
  read: () => Promise<ChatTurn[]>,
  save?: MemoryInstance["save"],
): MemoryInstance {
  let turns: Promise<ChatTurn[]> | undefined;
  const load = () => (turns ??= read());
  return { kind: "memory", label, memoryKey, load, messages: async () => turnsToMessages(await load()), ...(save ? { save } : {}) };
}

interface ParsedOutput {
  json: unknown;
}

export interface OutputParserInstance {
  kind: "outputParser";
  label: string;
  /** Ask the model once more to correct an answer that does not parse. */
  autofix: boolean;
  formatInstructions(): string;
  /** Throws OutputParseError when the text does not fit. */
  parse(text: string): ParsedOutput;
}

export interface ModerationInstance {
  kind: "moderation";
  /** The (possibly rewritten) input; throws ModerationRejected to refuse it. */
  check(input: string): Promise<string>;
}

export class OutputParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OutputParseError";
  }
}

export class ModerationRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModerationRejected";
  }
}

const kindOf = (v: unknown): unknown => (v && typeof v === "object" ? (v as { kind?: unknown }).kind : undefined);
export const isPrompt = (v: unknown): v is PromptInstance => kindOf(v) === "prompt";
export const isMemory = (v: unknown): v is MemoryInstance => kindOf(v) === "memory";
export const isOutputParser = (v: unknown): v is OutputParserInstance => kindOf(v) === "outputParser";
export const isModeration = (v: unknown): v is ModerationInstance => kindOf(v) === "moderation";
export const isChatModel = (v: unknown): v is BaseChatModel =>
  !!v && typeof v === "object" && typeof (v as BaseChatModel).invoke === "function" && typeof (v as BaseChatModel).stream === "function";

/** The chat model an input must hold, or a 400 naming the node and input. */
export function requireChatModel(value: unknown, label: string, input = "model"): BaseChatModel {
  if (!isChatModel(value)) throw fail("INVALID_FLOW", `${label} needs a chat model connected to its ${input} input`);
  return value;
}

export const moderationsOf = (value: unknown): ModerationInstance[] => asList(value).filter(isModeration);

/** Runs the moderations: the (possibly rewritten) question, or the refusal message. */
export async function moderate(question: string, moderations: ModerationInstance[]): Promise<{ question: string } | { refusal: string }> {
  try {
    for (const m of moderations) question = await m.check(question);
    return { question };
  } catch (err) {
    if (err instanceof ModerationRejected) return { refusal: err.message };
    throw err;
  }
}
