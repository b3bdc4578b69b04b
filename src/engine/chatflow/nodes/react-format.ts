// The ReAct text protocol (Flowise's reactAgentChat / reactAgentLLM): a prompt of our own that
// lists the tools and asks for Thought / Action / Action Input lines or a Final Answer, the
// scratchpad of earlier steps (each with its Observation), and the reading of a model's reply.
// Flowise downloads its prompts from the LangChain hub; edgeflow never does.
import type { StructuredToolInterface } from "@langchain/core/tools";
import { toJsonSchema } from "@langchain/core/utils/json_schema";

export interface ReactStep {
  /** The model's reply for this step, cut before any Observation it wrote itself. */
  log: string;
  observation: string;
}

export type ReactReply = { action: string; input: string } | { final: string };

type Schema = { properties?: Record<string, { type?: unknown }>; required?: string[] };

const schemaOf = (tool: StructuredToolInterface): Schema => {
  try {
    return toJsonSchema(tool.schema as Parameters<typeof toJsonSchema>[0]) as Schema;
  } catch {
    return {};
  }
};

/** How the model should write a tool's Action Input: plain text for one-field tools, else JSON. */
function inputHint(tool: StructuredToolInterface): string {
  const keys = Object.keys(schemaOf(tool).properties ?? {});
  if (keys.length === 0) return " (Action Input: none)";
  if (keys.length === 1) return "";
  return ` (Action Input: a JSON object with ${keys.join(", ")})`;
}

const toolList = (tools: StructuredToolInterface[]) =>
  tools.length ? tools.map((t) => `${t.name}: ${t.description.replace(/\s+/g, " ").trim()}${inputHint(t)}`).join("\n") : "(no tools)";

/** The whole prompt for one model turn: instructions, tools, history (chat only), question, scratchpad. */
export function reactPrompt(tools: StructuredToolInterface[], question: string, steps: ReactStep[], history?: string): string {
  const names = tools.map((t) => t.name).join(", ");
  const parts = [
    "Work out the answer to the question below, step by step. You can use these tools:",
    "",
    toolList(tools),
    "",
    "Reply in exactly this format:",
    "",
    "Thought: what you should do next and why",
    `Action: the tool to use, one of [${names}]`,
    "Action Input: the input for that tool",
    "Observation: the tool's result (it is given to you; never write it yourself)",
    "... (Thought, Action, Action Input and Observation may repeat as often as needed)",
    "Thought: I now know the final answer",
    "Final Answer: the answer to the question",
    "",
    "Start now.",
    "",
  ];
  if (history !== undefined) parts.push("Conversation so far:", history || "(none)", "", `New input: ${question}`);
  else parts.push(`Question: ${question}`);
  const pad = steps.map((s) => `${s.log}\nObservation: ${s.observation}\nThought:`).join(" ");
  parts.push(`Thought:${pad ? ` ${pad}` : ""}`);
  return parts.join("\n");
}

const FINAL = /Final Answer\s*:/i;
const ACTION = /Action\s*\d*\s*:[\s]*(.*?)[\s]*Action\s*\d*\s*Input\s*\d*\s*:[\s]*([\s\S]*)/i;

/** The model's reply without anything it wrote after its own "Observation:" (the stop sequence). */
export const cutAtObservation = (text: string): string => text.split(/\n\s*Observation\s*:/i)[0].trimEnd();

/**
 * A reply → the action it asks for, or the final answer. An action written before a Final Answer
 * wins (the model is guessing the result); text in neither format is taken as the answer.
 */
export function readReply(text: string): ReactReply {
  const reply = cutAtObservation(text);
  const action = ACTION.exec(reply);
  const final = FINAL.exec(reply);
  if (action && (!final || action.index < final.index)) {
    const input = action[2]
      .split(FINAL)[0]
      .trim()
      .replace(/^```(?:json)?\s*|\s*```$/g, "")
      .replace(/^"([\s\S]*)"$/, "$1")
      .trim();
    return { action: action[1].trim().replace(/^`|`$/g, ""), input };
  }
  if (final) return { final: reply.slice(final.index + final[0].length).trim() };
  return { final: reply.replace(/^\s*Thought\s*:\s*/i, "").trim() };
}

/** The Action Input as the tool's arguments: the text itself for a one-field tool, else JSON. */
export function toolArgs(tool: StructuredToolInterface, input: string): Record<string, unknown> | string {
  const schema = schemaOf(tool);
  const keys = Object.keys(schema.properties ?? {});
  if (keys.length === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch {
    parsed = undefined;
  }
  if (parsed && typeof parsed === "object" && !Array.isArray(parsed) && keys.some((k) => k in (parsed as object)))
    return parsed as Record<string, unknown>;
  if (keys.length === 1) return { [keys[0]]: input };
  return `Error: ${tool.name} takes a JSON object with ${keys.join(", ")} as its Action Input.`;
}
