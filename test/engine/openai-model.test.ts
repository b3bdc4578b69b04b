// The OpenAI-compatible model class on its own: tool calls (what agents will need), message roles.
import { describe, expect, it } from "vitest";
import { AIMessage, type AIMessageChunk, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { OpenAICompatibleChatModel } from "../../src/providers/chat/openai-compatible";
import { marker, requestsWith, standinUrl } from "./helpers";

const model = () =>
  new OpenAICompatibleChatModel({
    endpoint: { url: `${standinUrl()}/v1/chat/completions`, headers: {}, provider: "Stand-in", field: "basepath" },
    policy: { field: "basepath", env: { ENVIRONMENT: "test" } },
    model: "m",
    temperature: 0,
  });

const calculator = {
  type: "function",
  function: {
    name: "calculator",
    description: "Evaluates arithmetic",
    parameters: { type: "object", properties: { input: { type: "string" } }, required: ["input"] },
  },
};

describe("OpenAICompatibleChatModel", () => {
  it("bindTools sends the tools and reads tool calls (JSON)", async () => {
    const m = marker();
    const reply = await model()
      .bindTools([calculator])
      .invoke([new HumanMessage(`[tool] ${m}`)]);
    expect(reply.tool_calls).toEqual([{ id: "call_standin", name: "calculator", args: { input: "2+2" }, type: "tool_call" }]);
    const [req] = await requestsWith(m);
    expect((req.body as unknown as { tools: unknown[] }).tools).toEqual([calculator]);
  });

  it("reads streamed tool call chunks", async () => {
    let whole: AIMessageChunk | undefined;
    for await (const chunk of await model()
      .bindTools([calculator])
      .stream([new HumanMessage(`[tool] ${marker()}`)])) {
      whole = whole ? whole.concat(chunk) : chunk;
    }
    expect(whole?.tool_calls).toMatchObject([{ id: "call_standin", name: "calculator", args: { input: "2+2" } }]);
  });

  it("sends system, user, assistant tool calls and tool results in OpenAI's roles", async () => {
    const m = marker();
    await model().invoke([
      new SystemMessage("sys"),
      new HumanMessage(`q ${m}`),
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "calculator", args: { input: "1+1" } }] }),
      new ToolMessage({ content: "2", tool_call_id: "c1" }),
    ]);
    const [req] = await requestsWith(m);
    expect(req.body.messages).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: `q ${m}` },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "calculator", arguments: '{"input":"1+1"}' } }],
      },
      { role: "tool", content: "2", tool_call_id: "c1" },
    ]);
  });
});
