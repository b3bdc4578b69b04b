// Conversations the wire tests hand each chat provider (test/providers/*-wire.test.ts, the native
// model tests): the weather tool they bind, and history whose tool calls and results were cut apart.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { invokeStructured, structuredSchema } from "../../src/engine/agentflow/structured";

/** A tool that answers "sunny in <city>". */
export const weather = tool(async ({ city }) => `sunny in ${city}`, {
  name: "get_weather",
  description: "the weather in a city",
  schema: z.object({ city: z.string() }),
});

/**
 * A result whose call is gone (it opens the history), then a turn of two calls of which only the first
 * (`<prefix>c1`, Oslo) is answered, then the question `and? <m>`: what a V1 node reading only the last
 * message after a Tool Node, or a memory window, hands a model.
 */
export function cutToolConversation(m: string, prefix = ""): BaseMessage[] {
  const calls = [
    { id: `${prefix}c1`, name: "get_weather", args: { city: "Oslo" }, type: "tool_call" as const },
    { id: `${prefix}c2`, name: "get_weather", args: { city: "Rome" }, type: "tool_call" as const },
  ];
  return [
    new ToolMessage({ content: "rainy in Rome", tool_call_id: `${prefix}c0`, name: "get_weather" }),
    new HumanMessage(`weather? ${m}`),
    new AIMessage({ content: "Looking.", tool_calls: calls }),
    new ToolMessage({ content: "sunny in Oslo", tool_call_id: `${prefix}c1` }),
    new HumanMessage(`and? ${m}`),
  ];
}

/** What an OpenAI-shaped chat API (Cohere v2, watsonx) receives for cutToolConversation(m). */
export const cutToolWire = (m: string) => [
  { role: "user", content: "The tool get_weather answered: rainy in Rome" },
  { role: "user", content: `weather? ${m}` },
  {
    role: "assistant",
    content: "Looking.",
    tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }],
  },
  { role: "tool", content: "sunny in Oslo", tool_call_id: "c1" },
  { role: "user", content: `and? ${m}` },
];

/** A question, a turn of two calls (`c1` Oslo, `c2` Rome) with no text, both answered, then `and tomorrow? <m>`. */
export function twoCallsAnswered(m: string): BaseMessage[] {
  const calls = [
    { id: "c1", name: "get_weather", args: { city: "Oslo" }, type: "tool_call" as const },
    { id: "c2", name: "get_weather", args: { city: "Rome" }, type: "tool_call" as const },
  ];
  return [
    new HumanMessage(`weather? ${m}`),
    new AIMessage({ content: "", tool_calls: calls }),
    new ToolMessage({ content: "sunny in Oslo", tool_call_id: "c1" }),
    new ToolMessage({ content: "rainy in Rome", tool_call_id: "c2" }),
    new HumanMessage(`and tomorrow? ${m}`),
  ];
}

/** History opening with the greeting, a question whose answer failed asked again (`asked again <m>`), two system messages. */
export const awkwardHistory = (m: string): BaseMessage[] => [
  new SystemMessage("You are terse."),
  new AIMessage("Hello! How can I help?"),
  new HumanMessage("the question whose answer failed"),
  new HumanMessage(`asked again ${m}`),
  new SystemMessage("Answer in English."),
];

/** Structured output of one enum field `status`, asked of `model` with `[so {"status":"open"}] <m>` (the stand-ins' cue). */
export async function askStatus(model: BaseChatModel, m: string): Promise<unknown> {
  const schema = structuredSchema([{ key: "status", type: "enum", enumValues: "open, closed" }], "LLM")!;
  const { value } = await invokeStructured(
    model,
    [new HumanMessage(`[so {"status":"open"}] ${m}`)],
    schema,
    "LLM",
    new AbortController().signal,
  );
  return value;
}
