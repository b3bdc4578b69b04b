// Conversations the wire tests hand each chat provider (test/providers/*-wire.test.ts, the native
// model tests): the weather tool they bind, and history whose tool calls and results were cut apart.
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

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
