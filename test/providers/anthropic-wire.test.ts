// chatAnthropic's wire format against the Anthropic stand-in (test/standin/anthropic.mjs), which refuses
// what the Messages API refuses with its 400: the stand-in's rules themselves, then the conversations
// our flows hand the model (an empty question from a form, tool calls with blank text, blank or several
// system messages, memory whose last answer failed, history opening with a greeting), each checked to
// reach the service as a request it accepts.
import { env } from "cloudflare:workers";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, inject, it } from "vitest";
import { cutToolConversation, weather } from "./wire-conversations";
import type { Env } from "../../src/env";
import { buildChatModel } from "../../src/providers/chat/registry";
import type { ProviderDeps } from "../../src/providers/types";
import { getCredentialData } from "../../src/services/credentials";
import { edge, graph, node, run, start } from "../agentflow/helpers";
import { credential, db, marker, runtimeWith } from "../engine/helpers";

const anthropicUrl = () => inject("anthropicUrl");

const deps = (): ProviderDeps => ({
  env: { ENVIRONMENT: env.ENVIRONMENT, ANTHROPIC_BASE_URL: anthropicUrl() },
  getCredential: (id) => getCredentialData({ db: db(), env: env as unknown as Env }, id),
});

type Body = Record<string, unknown> & { messages?: unknown[] };
/** The body of the last request the stand-in received with `m` in it. */
const sent = async (m: string): Promise<Body> =>
  ((await (await fetch(`${anthropicUrl()}/requests?contains=${encodeURIComponent(m)}`)).json()) as Array<{ body: Body }>).at(-1)!.body;

describe("chatAnthropic: what our flows send is a request Anthropic accepts", () => {
  const build = async () =>
    buildChatModel(
      "chatAnthropic",
      { modelName: "claude-3-5-haiku-latest", credential: await credential("anthropicApi", { anthropicApiKey: "sk-ant-flows" }) },
      deps(),
    );
  const raw = (body: Record<string, unknown>) =>
    fetch(`${anthropicUrl()}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": "k", "content-type": "application/json" },
      body: JSON.stringify({ model: "claude-3-5-haiku-latest", max_tokens: 10, ...body }),
    });

  it("the stand-in answers Anthropic's 400 for blank text, a system role, an unanswered tool_use, an unknown tool_use_id", async () => {
    const use = { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} };
    const cases: Array<[unknown[], string]> = [
      [[{ role: "user", content: [{ type: "text", text: "" }] }], "text content blocks must be non-empty"],
      [[{ role: "user", content: "\n\n" }], "text content blocks must contain non-whitespace text"],
      [[{ role: "system", content: "x" }], 'Unexpected role "system"'],
      [
        [
          { role: "user", content: "hi" },
          { role: "assistant", content: [use] },
          { role: "user", content: "go on" },
        ],
        "`tool_use` ids were found",
      ],
      [[{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_9", content: "x" }] }], "unexpected `tool_use_id`"],
      [[], "at least one message is required"],
    ];
    for (const [messages, message] of cases) {
      const res = await raw({ messages });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        type: "error",
        error: { type: "invalid_request_error", message: expect.stringContaining(message) },
      });
    }
    // Consecutive same-role turns are combined by the API, not refused; tools may be left out when results are sent.
    const ok = await raw({
      messages: [
        { role: "user", content: "a" },
        { role: "user", content: "b" },
        { role: "assistant", content: [use] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "sunny" }] },
      ],
    });
    expect(ok.status).toBe(200);
  });

  it("an empty question (an agentflow started by a form) and a system prompt alone go as a stand-in user turn", async () => {
    const model = await build();
    const m = marker();
    expect((await model.invoke([new SystemMessage(`Fill the form ${m}`), new HumanMessage("")])).content).toBe("echo: Please continue.");
    expect(await sent(m)).toMatchObject({
      system: `Fill the form ${m}`,
      messages: [{ role: "user", content: [{ type: "text", text: "Please continue." }] }],
    });
    const m2 = marker();
    expect((await model.invoke([new SystemMessage(`Only a system prompt ${m2}`)])).content).toBe("echo: Please continue.");
    expect((await sent(m2)).messages).toEqual([{ role: "user", content: [{ type: "text", text: "Please continue." }] }]);
  });

  it("an AI turn of tool calls with only whitespace text (Claude often writes \\n\\n before a call) goes without it", async () => {
    const model = (await build()).bindTools!([weather]);
    const m = marker();
    const calls = [{ id: "toolu_a1", name: "get_weather", args: { city: "Oslo" }, type: "tool_call" as const }];
    const reply = await model.invoke([
      new HumanMessage(`weather? ${m}`),
      new AIMessage({ content: "\n\n", tool_calls: calls }),
      new ToolMessage({ content: "sunny in Oslo", tool_call_id: "toolu_a1" }),
    ]);
    expect(reply.content).toBe(`echo: weather? ${m}`);
    expect((await sent(m)).messages).toEqual([
      { role: "user", content: [{ type: "text", text: `weather? ${m}` }] },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_a1", name: "get_weather", input: { city: "Oslo" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_a1", content: "sunny in Oslo" }] },
    ]);
  });

  it("a tool that answered nothing is said to have (an empty tool_result is refused, as reported)", async () => {
    const model = (await build()).bindTools!([weather]);
    const m = marker();
    const calls = [{ id: "toolu_e1", name: "get_weather", args: { city: "Oslo" }, type: "tool_call" as const }];
    await model.invoke([
      new HumanMessage(`weather? ${m}`),
      new AIMessage({ content: "", tool_calls: calls }),
      new ToolMessage({ content: "", tool_call_id: "toolu_e1" }),
    ]);
    expect((await sent(m)).messages?.at(-1)).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_e1", content: "(the tool answered nothing)" }],
    });
  });

  it("a blank system message is left out; two system messages (one after the question) are one system prompt", async () => {
    const model = await build();
    const m = marker();
    await model.invoke([new SystemMessage("  "), new HumanMessage(`hi ${m}`)]);
    expect(await sent(m)).not.toHaveProperty("system");
    const m2 = marker();
    await model.invoke([new SystemMessage("You are terse."), new HumanMessage(`hi ${m2}`), new SystemMessage("Answer in French.")]);
    expect(await sent(m2)).toMatchObject({
      system: "You are terse.\n\nAnswer in French.",
      messages: [{ role: "user", content: [{ type: "text", text: `hi ${m2}` }] }],
    });
  });

  it("a tool result cut from its call goes as user text; a call cut from its result goes without it", async () => {
    const model = (await build()).bindTools!([weather]);
    const m = marker();
    const reply = await model.invoke(cutToolConversation(m, "toolu_"));
    expect(reply.content).toBe(`echo: and? ${m}`);
    expect((await sent(m)).messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "The tool get_weather answered: rainy in Rome" },
          { type: "text", text: `weather? ${m}` },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Looking." },
          { type: "tool_use", id: "toolu_c1", name: "get_weather", input: { city: "Oslo" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_c1", content: "sunny in Oslo" },
          { type: "text", text: `and? ${m}` },
        ],
      },
    ]);
  });

  it("memory ending with a question whose answer failed, and history opening with the assistant's greeting, are accepted", async () => {
    const model = await build();
    const m = marker();
    const reply = await model.invoke([new HumanMessage("first try"), new HumanMessage(`second try ${m}`)]);
    expect(reply.content).toContain(`second try ${m}`);
    expect((await sent(m)).messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "first try" },
          { type: "text", text: `second try ${m}` },
        ],
      },
    ]);
    const m2 = marker();
    await model.invoke([new AIMessage("Hi! How can I help?"), new AIMessage(""), new HumanMessage(`a question ${m2}`)]);
    expect((await sent(m2)).messages).toEqual([
      { role: "assistant", content: [{ type: "text", text: "Hi! How can I help?" }] },
      { role: "user", content: [{ type: "text", text: `a question ${m2}` }] },
    ]);
  });
});

describe("chatAnthropic in an agentflow", () => {
  it("a flow started by an empty form, its LLM node holding only a system prompt, gets an answer", async () => {
    const m = marker();
    const g = graph(
      [
        start({ startInputType: "formInput", formInputTypes: [{ type: "string", label: "Name", name: "name" }] }),
        node("llmAgentflow_0", {
          llmModel: "chatAnthropic",
          llmModelConfig: {
            modelName: "claude-3-5-haiku-latest",
            FLOWISE_CREDENTIAL_ID: await credential("anthropicApi", { anthropicApiKey: "sk-ant-form" }),
          },
          llmMessages: [{ role: "system", content: `Greet the visitor ${m}` }],
          llmEnableMemory: true,
        }),
      ],
      [edge("startAgentflow_0", "llmAgentflow_0")],
    );
    const out = await run(g, { form: {} }, { ctx: { runtime: runtimeWith({ ANTHROPIC_BASE_URL: anthropicUrl() }) } });
    expect(out.errorStatus).toBeUndefined();
    expect(out.text).toBe("echo: Please continue.");
    expect(await sent(m)).toMatchObject({ system: `Greet the visitor ${m}`, messages: [{ role: "user" }] });
  });
});
