// POST /assistants/generate/instruction: the custom assistant page's "Generate" button — the chat
// model the page picked writes the assistant's instructions for the task the person describes,
// with edgeflow's own prompt (Flowise's answers `{content}` the same way).
import type { Env } from "../env";
import { type SelectedChatModel, askChosenModel } from "./chosen-model";
import type { Deps } from "./deps";

const PROMPT =
  "You write the instructions (the system prompt) of an AI assistant. From the task below, write clear instructions: " +
  "its role, what it should do step by step, the tools or knowledge it should use when they help, its tone, and what it " +
  "must not do. Address the assistant as 'you'. Answer with the instructions only: no preamble, no quotes.";

export async function generateAssistantInstruction(
  deps: Deps<"getCredential"> & { env: Env },
  task: string,
  selected: SelectedChatModel,
  signal: AbortSignal,
): Promise<{ content: string }> {
  return { content: await askChosenModel(deps, selected, { system: PROMPT, human: `Task: ${task}`, what: "instructions" }, signal) };
}
