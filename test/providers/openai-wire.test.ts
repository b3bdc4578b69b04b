// The OpenAI chat completions wire format (chatOpenAI and every OpenAI-compatible provider) against the
// stand-in (test/standin/server.mjs), which refuses what OpenAI refuses with its 400: the stand-in's rules
// themselves, then what our flows hand the model (an empty question or a system prompt alone, an AI turn of
// tool calls only, history opening with a greeting, two system messages, memory whose last answer failed, a
// tool result cut from its call or a call cut from its result), each checked to reach the service as a
// request it accepts.
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { cutToolConversation, weather } from "./wire-conversations";
import { pointAtStandin } from "../engine/helpers";
import { json } from "../helpers";
import { openAICredential } from "../agentflow-api/flows";
import { saveMultiagent, v1Edge as edge, v1Node as node, v1Ref as ref } from "../agentflow-v1/flows";
import { OpenAICompatibleChatModel } from "../../src/providers/chat/openai-compatible";
import { marker, requestsWith, standinUrl } from "../engine/helpers";

type Sent = { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string };
/** The messages of the last chat completions request the stand-in received with `m` in it. */
const sent = async (m: string): Promise<Sent[]> =>
  (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions")).at(-1)!.body.messages as Sent[];

const build = async () =>
  new OpenAICompatibleChatModel({
    endpoint: { url: `${standinUrl()}/v1/chat/completions`, headers: {}, provider: "Stand-in", field: "basepath" },
    policy: { field: "basepath", env: { ENVIRONMENT: "test" } },
    model: "gpt-standin",
  });

const raw = (body: Record<string, unknown>) =>
  fetch(`${standinUrl()}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: "Bearer k", "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-standin", ...body }),
  });

describe("OpenAI chat completions: what our flows send is a request OpenAI accepts", () => {
  it("the stand-in answers OpenAI's 400 for tool messages out of order, roles, contents, tool names and ranges", async () => {
    const q = { role: "user", content: "q" };
    const asked = {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
    };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ messages: [] }, "[] is too short - 'messages'"],
      [{ messages: [{ role: "model", content: "hi" }] }, "Invalid value: 'model'"],
      [
        { messages: [q, { role: "tool", content: "x", tool_call_id: "c1" }] },
        "messages with role 'tool' must be a response to a preceeding",
      ],
      [{ messages: [q, asked, q] }, "An assistant message with 'tool_calls' must be followed by tool messages responding to each"],
      [{ messages: [q, asked] }, "The following tool_call_ids did not have response messages: c1"],
      [{ messages: [q, asked, { role: "tool", content: "x", tool_call_id: "c9" }] }, "'tool_call_id' of 'c9' not found in 'tool_calls'"],
      [{ messages: [q, { role: "assistant", content: null }] }, "Invalid type for 'messages[1].content'"],
      [{ messages: [{ role: "user", content: [] }] }, "empty array"],
      [{ messages: [{ role: "system", content: [{ type: "image_url", image_url: { url: "x" } }] }] }, "Invalid value: 'image_url'"],
      [{ messages: [q], tools: [{ type: "function", function: { name: "get weather" } }] }, "string does not match pattern"],
      [{ messages: [q], tools: [{ type: "function", function: { name: "x".repeat(65) } }] }, "Expected a string with maximum length 64"],
      [{ messages: [q], tool_choice: "any" }, "Invalid value for 'tool_choice'"],
      [{ messages: [q], temperature: 3 }, "Expected a value <= 2"],
      [{ messages: [q], stop: ["a", "b", "c", "d", "e"] }, "Invalid 'stop'"],
      [{ messages: [q], stream_options: { include_usage: true } }, "only allowed when 'stream' is enabled"],
    ];
    for (const [body, message] of cases) {
      const res = await raw(body);
      expect(res.status, message).toBe(400);
      expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error", message: expect.stringContaining(message) } });
    }
    // Consecutive user turns, an assistant opening, several system messages, answered calls: all accepted.
    const ok = await raw({
      messages: [
        { role: "system", content: "a" },
        { role: "assistant", content: "Hello!" },
        q,
        q,
        asked,
        { role: "tool", content: "x", tool_call_id: "c1" },
        { role: "system", content: "b" },
      ],
    });
    expect(ok.status).toBe(200);
  });

  it("an empty question, a system prompt alone, tool calls only, a greeting first, two system prompts: accepted", async () => {
    const model = await build();
    const m = marker();
    await model.invoke([new SystemMessage(`Fill the form ${m}`), new HumanMessage("")]);
    expect(await sent(m)).toEqual([
      { role: "system", content: `Fill the form ${m}` },
      { role: "user", content: "" },
    ]);
    const m2 = marker();
    await model.invoke([new SystemMessage(`Only a system prompt ${m2}`)]);
    expect(await sent(m2)).toEqual([{ role: "system", content: `Only a system prompt ${m2}` }]);

    const m3 = marker();
    const calls = [{ id: "c1", name: "get_weather", args: { city: "Oslo" }, type: "tool_call" as const }];
    const reply = await model.bindTools!([weather]).invoke([
      new SystemMessage("You are terse."),
      new AIMessage("Hello! How can I help?"),
      new HumanMessage("the question whose answer failed"),
      new HumanMessage(`weather? ${m3}`),
      new AIMessage({ content: "", tool_calls: calls }),
      new ToolMessage({ content: "sunny in Oslo", tool_call_id: "c1" }),
      new SystemMessage("Answer in English."),
    ]);
    expect(reply.content).toBe(`echo: weather? ${m3}`);
    expect((await sent(m3)).slice(4)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }],
      },
      { role: "tool", content: "sunny in Oslo", tool_call_id: "c1" },
      { role: "system", content: "Answer in English." },
    ]);
  });

  it("a tool result cut from its call goes as a user message; a call cut from its result goes without it", async () => {
    const model = await build();
    const m = marker();
    const reply = await model.invoke(cutToolConversation(m));
    expect(reply.content).toBe(`echo: and? ${m}`);
    expect(await sent(m)).toEqual([
      { role: "user", content: "The tool get_weather answered: rainy in Rome" },
      { role: "user", content: `weather? ${m}` },
      { role: "assistant", content: "Looking.", tool_calls: [expect.objectContaining({ id: "c1" })] },
      { role: "tool", content: "sunny in Oslo", tool_call_id: "c1" },
      { role: "user", content: `and? ${m}` },
    ]);
  });

  it("Agentflow V1: an LLM node reading only the last message after a Tool Node (a tool result) gets its answer", async () => {
    const credential = await openAICredential();
    const tool = await json("POST", "/tools", {
      body: {
        name: "book_room",
        description: "Books a room",
        schema: JSON.stringify([{ property: "room", type: "string", description: "room name", required: true }]),
        func: "return 'booked ' + $room;",
      },
    });
    const model = node("chatOpenAI_0", "chatOpenAI", "Chat Models", { modelName: "gpt-standin" });
    pointAtStandin(model as never, credential);
    const { id } = await saveMultiagent({
      nodes: [
        model,
        node("customTool_0", "customTool", "Tools", { selectedTool: tool.id }),
        node("seqStart_0", "seqStart", "Sequential Agents", { model: ref("chatOpenAI_0") }),
        node("seqLLMNode_0", "seqLLMNode", "Sequential Agents", { llmNodeName: "Planner", sequentialNode: [ref("seqStart_0")] }),
        node("seqToolNode_0", "seqToolNode", "Sequential Agents", {
          toolNodeName: "Booking",
          tools: [ref("customTool_0")],
          llmNode: ref("seqLLMNode_0"),
        }),
        node("seqLLMNode_1", "seqLLMNode", "Sequential Agents", {
          llmNodeName: "Reporter",
          sequentialNode: [ref("seqToolNode_0")],
          conversationHistorySelection: "last_message",
          humanMessagePrompt: "Report what happened.",
        }),
        node("seqEnd_0", "seqEnd", "Sequential Agents", { sequentialNode: ref("seqLLMNode_1") }),
      ] as never,
      edges: [
        edge("chatOpenAI_0", "seqStart_0", "chatOpenAI", "model"),
        edge("customTool_0", "seqToolNode_0", "customTool", "tools"),
        edge("seqStart_0", "seqLLMNode_0", "seqStart", "sequentialNode"),
        edge("seqLLMNode_0", "seqToolNode_0", "seqLLMNode", "llmNode"),
        edge("seqToolNode_0", "seqLLMNode_1", "seqToolNode", "sequentialNode"),
        edge("seqLLMNode_1", "seqEnd_0", "seqLLMNode", "sequentialNode"),
      ],
    });
    const m = marker();
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `book it ${m} [call book_room {"room":"Blue"}]` } });
    expect(answer.text).toBe("echo: Report what happened.");
    const reporter = (await requestsWith("Report what happened.")).filter((r) => JSON.stringify(r.body).includes("booked Blue")).at(-1)!;
    expect(reporter.body.messages).toEqual([
      { role: "user", content: "The tool book_room answered: booked Blue" },
      { role: "user", content: "Report what happened." },
    ]);
  });
});
