// The OpenAI-compatible hosted services with rules of their own (Mistral, Perplexity, DeepSeek, Groq) against
// a stand-in holding those rules (test/standin/openai-dialects.mjs): the stand-in's refusals themselves, then
// the conversations our flows hand each service's node (an empty question, a system prompt alone, memory
// ending with a question whose answer failed, a greeting first, tool calls with ids made elsewhere, tool calls
// cut from their results, structured output, streaming), each checked to reach the service as a request it
// accepts, shaped as the service wants it.
import { env } from "cloudflare:workers";
import { AIMessage, type AIMessageChunk, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { describe, expect, inject, it } from "vitest";
import { cutToolConversation, weather } from "./wire-conversations";
import type { Env } from "../../src/env";
import { invokeForcedTool } from "../../src/engine/core/structured-output";
import { TOOL_RESULTS_READ } from "../../src/providers/chat/openai-dialect";
import { EMPTY_USER_TEXT } from "../../src/providers/chat/messages";
import { buildChatModel } from "../../src/providers/chat/registry";
import type { ProviderDeps } from "../../src/providers/types";
import { getCredentialData } from "../../src/services/credentials";
import { credential, db, marker } from "../engine/helpers";

const url = () => inject("openaiDialectsUrl");
const deps = (): ProviderDeps => ({
  env: {
    ENVIRONMENT: env.ENVIRONMENT,
    DEEPSEEK_BASE_URL: `${url()}/deepseek`,
    PERPLEXITY_BASE_URL: `${url()}/perplexity`,
    XAI_BASE_URL: `${url()}/xai/v1`,
    FIREWORKS_BASE_URL: `${url()}/fireworks/inference/v1`,
  },
  getCredential: (id) => getCredentialData({ db: db(), env: env as unknown as Env }, id),
});

const MISTRAL = "/mistral/v1/chat/completions";
const PERPLEXITY = "/perplexity/chat/completions";
const DEEPSEEK = "/deepseek/chat/completions";
const GROQ = "/groq/openai/v1/chat/completions";
const XAI = "/xai/v1/chat/completions";
const CEREBRAS = "/cerebras/v1/chat/completions";
const FIREWORKS = "/fireworks/inference/v1/chat/completions";

type Call = { id: string; type: string; function: { name: string; arguments: string } };
type Sent = { role: string; content: unknown; tool_calls?: Call[]; tool_call_id?: string; reasoning_content?: string };
type Body = Record<string, unknown> & { messages: Sent[] };
/** The body of the last request `path` received with `m` in it. */
async function sent(path: string, m: string): Promise<Body> {
  const records = (await (await fetch(`${url()}/requests?contains=${encodeURIComponent(m)}`)).json()) as Array<{
    path: string;
    body: Body;
  }>;
  const last = records.filter((r) => r.path === path).at(-1);
  if (!last) throw new Error(`${path} received nothing with ${m}`);
  return last.body;
}

const raw = (path: string, body: Record<string, unknown>) =>
  fetch(`${url()}${path}`, {
    method: "POST",
    headers: { authorization: "Bearer k", "content-type": "application/json" },
    body: JSON.stringify(body),
  });

const credentials = new Map<string, Promise<string>>();
const stored = (name: string, data: Record<string, unknown>) => {
  if (!credentials.has(name)) credentials.set(name, credential(name, data));
  return credentials.get(name)!;
};

// Each node as a flow configures it, pointed at the stand-in: its base URL input, else its deployment var.
const mistral = async (config: Record<string, unknown> = {}) =>
  buildChatModel(
    "chatMistralAI",
    {
      modelName: "mistral-small-latest",
      overrideEndpoint: `${url()}/mistral/v1`,
      credential: await stored("mistralAIApi", { mistralAIAPIKey: "mistral-key" }),
      ...config,
    },
    deps(),
  );
const perplexity = async () =>
  buildChatModel("chatPerplexity", { model: "sonar", credential: await stored("perplexityApi", { perplexityApiKey: "pplx-key" }) }, deps());
const deepseek = async (config: Record<string, unknown> = {}) =>
  buildChatModel(
    "chatDeepseek",
    { modelName: "deepseek-reasoner", credential: await stored("deepseekApi", { deepseekApiKey: "ds-key" }), ...config },
    deps(),
  );
const groq = async () =>
  buildChatModel(
    "groqChat",
    {
      modelName: "llama-3.3-70b-versatile",
      basepath: `${url()}/groq/openai/v1`,
      credential: await stored("groqApi", { groqApiKey: "gsk-key" }),
    },
    deps(),
  );

// The sampling inputs a flow may set on any node: the penalties and stop words some services refuse.
const SAMPLING = { temperature: 0.3, maxTokens: 64, frequencyPenalty: 0.2, presencePenalty: 0.4, stopSequence: "END" };
const xai = async (config: Record<string, unknown> = {}) =>
  buildChatModel(
    "chatXAI",
    { modelName: "grok-3-mini", credential: await stored("xaiApi", { xaiApiKey: "xai-key" }), ...SAMPLING, ...config },
    deps(),
  );
const cerebras = async (config: Record<string, unknown> = {}) =>
  buildChatModel(
    "chatCerebras",
    {
      modelName: "llama-3.3-70b",
      basepath: `${url()}/cerebras/v1`,
      credential: await stored("cerebrasAIApi", { cerebrasApiKey: "csk-key" }),
      ...SAMPLING,
      ...config,
    },
    deps(),
  );
const fireworks = async (config: Record<string, unknown> = {}) =>
  buildChatModel(
    "chatFireworks",
    {
      modelName: "accounts/fireworks/models/llama-v3p1-70b-instruct",
      credential: await stored("fireworksApi", { fireworksApiKey: "fw-key" }),
      maxTokens: 8192,
      ...config,
    },
    deps(),
  );

const calls = (...ids: Array<string | undefined>) =>
  ids.map((id, i) => ({ id, name: "get_weather", args: { city: ["Oslo", "Rome", "Paris"][i] }, type: "tool_call" as const }));
const UUID = "0b6a8c1e-5d2f-4e8a-9c3b-7f1d2e4a6b8c";

/**
 * What our flows hand a chat model, each conversation carrying `m`: the reply's text, or a failure's message
 * (so that a refusal names the conversation that met it).
 */
async function ourConversations(model: BaseChatModel, m: string): Promise<Record<string, string>> {
  const tools = model.bindTools!([weather]);
  const text = (reply: BaseMessage) => (typeof reply.content === "string" ? reply.content : JSON.stringify(reply.content));
  const conversations: Record<string, () => Promise<string>> = {
    "an empty question": async () => text(await model.invoke([new SystemMessage(`Fill the form ${m}`), new HumanMessage("")])),
    "a system prompt alone": async () => text(await model.invoke([new SystemMessage(`Only a system prompt ${m}`)])),
    "memory ending with a question whose answer failed": async () =>
      text(await model.invoke([new HumanMessage("first try"), new HumanMessage(`second try ${m}`)])),
    "history opening with the assistant's greeting": async () =>
      text(await model.invoke([new SystemMessage("You are terse."), new AIMessage("Hello! How can I help?"), new HumanMessage(`q ${m}`)])),
    "a system prompt after the question": async () =>
      text(await model.invoke([new SystemMessage("You are terse."), new HumanMessage(`hi ${m}`), new SystemMessage("Answer in French.")])),
    "tool calls with ids made elsewhere": async () =>
      text(
        await tools.invoke([
          new HumanMessage(`weather? ${m}`),
          new AIMessage({ content: "", tool_calls: calls(undefined, UUID, "toolu_01AbCdEf") }),
          new ToolMessage({ content: "sunny in Oslo", tool_call_id: "call_0" }),
          new ToolMessage({ content: "sunny in Rome", tool_call_id: UUID }),
          new ToolMessage({ content: "sunny in Paris", tool_call_id: "toolu_01AbCdEf" }),
        ]),
      ),
    "tool calls cut from their results": async () => text(await tools.invoke(cutToolConversation(m))),
    "structured output (a forced function call)": async () =>
      JSON.stringify(
        (
          await invokeForcedTool(
            model,
            [new SystemMessage("Extract."), new HumanMessage(`[so {"city":"Oslo"}] ${m}`)],
            { name: "structured_output", description: "the answer" },
            { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
            undefined,
          )
        ).tool_calls?.[0]?.args,
      ),
    streaming: async () => {
      let whole = "";
      for await (const chunk of await tools.stream([
        new HumanMessage(`weather? ${m}`),
        new AIMessage({ content: "", tool_calls: calls(UUID) }),
        new ToolMessage({ content: "sunny in Oslo", tool_call_id: UUID }),
        new HumanMessage(`and? ${m}`),
      ]))
        whole += chunk.content;
      return whole;
    },
  };
  const out: Record<string, string> = {};
  for (const [name, run] of Object.entries(conversations)) out[name] = await run().catch((err: Error) => `FAILED: ${err.message}`);
  return out;
}

/** Every conversation answered (none refused): the answers the generic stand-in script gives. */
const answered = (m: string) => ({
  "an empty question": expect.stringMatching(/^echo: /),
  "a system prompt alone": expect.stringMatching(/^echo: /),
  "memory ending with a question whose answer failed": expect.stringContaining(`second try ${m}`),
  "history opening with the assistant's greeting": `echo: q ${m}`,
  "a system prompt after the question": `echo: hi ${m}`,
  "tool calls with ids made elsewhere": `echo: weather? ${m}`,
  "tool calls cut from their results": `echo: and? ${m}`,
  "structured output (a forced function call)": '{"city":"Oslo"}',
  streaming: `echo: and? ${m}`,
});

describe("every conversation our flows hand each service is one it accepts", () => {
  for (const [node, build] of [
    ["chatMistralAI", () => mistral()],
    ["chatPerplexity", () => perplexity()],
    ["chatDeepseek (deepseek-reasoner)", () => deepseek()],
    ["chatDeepseek (deepseek-chat, thinking)", () => deepseek({ modelName: "deepseek-chat", thinking: true })],
    ["groqChat", () => groq()],
    ["chatXAI (grok-3-mini, penalties and stop words set)", () => xai()],
    ["chatXAI (grok-4-1-fast-reasoning)", () => xai({ modelName: "grok-4-1-fast-reasoning" })],
    ["chatCerebras (penalties set)", () => cerebras()],
    ["chatFireworks (max tokens 8192)", () => fireworks()],
  ] as const) {
    it(node, async () => {
      const m = marker();
      expect(await ourConversations(await build(), m)).toEqual(answered(m));
    });
  }
});

describe("chatMistralAI: Mistral's rules", () => {
  it("the stand-in answers Mistral's 400 for tool call ids, role order, the last role; its 422 for unknown fields", async () => {
    const call = (id: string) => ({ id, type: "function", function: { name: "get_weather", arguments: "{}" } });
    const asked = (id: string) => ({ role: "assistant", content: null, tool_calls: [call(id)] });
    const q = { role: "user", content: "q" };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ messages: [q, asked("call_0"), { role: "tool", content: "x", tool_call_id: "call_0" }] }, "Tool call id was call_0 but must be"],
      [{ messages: [q, asked("abcDEF123"), { role: "tool", content: "x", tool_call_id: "toolu_1" }] }, "Tool call id was toolu_1"],
      [
        { messages: [q, asked("abcDEF123"), { role: "tool", content: "x", tool_call_id: "abcDEF123" }, q] },
        "Unexpected role 'user' after role 'tool'",
      ],
      [
        {
          messages: [q, asked("abcDEF123"), { role: "tool", content: "x", tool_call_id: "abcDEF123" }, { role: "system", content: "s" }, q],
        },
        "Unexpected role 'system' after role 'tool'",
      ],
      [
        { messages: [q, { role: "assistant", content: "a" }, { role: "system", content: "s" }, q] },
        "Unexpected role 'system' after role 'assistant'",
      ],
      [
        { messages: [q, { role: "assistant", content: "hi" }] },
        "Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant",
      ],
      [{ messages: [q, { role: "system", content: "s" }] }, "got system"],
      [{ messages: [{ role: "assistant", content: "hi" }] }, "Conversation must start with a user message or system message"],
      [
        { messages: [q, asked("abcDEF123"), { role: "assistant", content: "a" }, q] },
        "Not the same number of function calls and responses",
      ],
    ];
    for (const [body, message] of cases) {
      const res = await raw(MISTRAL, { model: "mistral-small-latest", ...body });
      expect(res.status, message).toBe(400);
      expect(await res.json()).toMatchObject({ object: "error", message: expect.stringContaining(message) });
    }
    const unknown: Array<[Record<string, unknown>, unknown[]]> = [
      [{ messages: [q], stream: true, stream_options: { include_usage: true } }, ["body", "stream_options"]],
      [{ messages: [q], user: "u-1" }, ["body", "user"]],
      [{ messages: [q], max_completion_tokens: 10 }, ["body", "max_completion_tokens"]],
      [{ messages: [{ ...q, name: "alice" }] }, ["body", "messages", 0, "user", "name"]],
      [
        { messages: [q, { ...asked("abcDEF123"), reasoning_content: "" }, { role: "tool", content: "x", tool_call_id: "abcDEF123" }] },
        ["body", "messages", 1, "assistant", "reasoning_content"],
      ],
    ];
    for (const [body, loc] of unknown) {
      const res = await raw(MISTRAL, { model: "mistral-small-latest", ...body });
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({
        message: { detail: [{ type: "extra_forbidden", loc, msg: "Extra inputs are not permitted" }] },
      });
    }
    expect((await raw(MISTRAL, { model: "m", messages: [q], tool_choice: "force" })).status).toBe(422);
    // A system prompt alone, several system prompts first, Mistral's own ids, a prefix answer last: accepted.
    expect((await raw(MISTRAL, { model: "m", messages: [{ role: "system", content: "s" }] })).status).toBe(200);
    const ok = await raw(MISTRAL, {
      model: "m",
      tool_choice: "any",
      random_seed: 1,
      safe_prompt: true,
      messages: [
        { role: "system", content: "a" },
        { role: "system", content: "b" },
        q,
        q,
        asked("abcDEF123"),
        { role: "tool", content: "x", tool_call_id: "abcDEF123", name: "get_weather" },
        { role: "assistant", content: "done" },
        q,
        { role: "assistant", content: "Sure", prefix: true },
      ],
    });
    expect(ok.status).toBe(200);
  });

  it("ids made elsewhere (none, a UUID, Anthropic's toolu_…) go as 9 letters and digits, each result with its call's", async () => {
    const model = (await mistral()).bindTools!([weather]);
    const m = marker();
    await model.invoke([
      new HumanMessage(`weather? ${m}`),
      new AIMessage({ content: "", tool_calls: calls(undefined, UUID, "toolu_01AbCdEf") }),
      new ToolMessage({ content: "sunny in Oslo", tool_call_id: "call_0" }),
      new ToolMessage({ content: "sunny in Rome", tool_call_id: UUID }),
      new ToolMessage({ content: "sunny in Paris", tool_call_id: "toolu_01AbCdEf" }),
    ]);
    const [, asked, ...results] = (await sent(MISTRAL, m)).messages;
    const ids = asked.tool_calls!.map((c) => c.id);
    expect(ids).toHaveLength(3);
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(new Set(ids).size).toBe(3);
    expect(results.map((r) => [r.tool_call_id, r.content])).toEqual([
      [ids[0], "sunny in Oslo"],
      [ids[1], "sunny in Rome"],
      [ids[2], "sunny in Paris"],
    ]);
  });

  it("Mistral's own tool call ids go back as they came, asked whole or streamed", async () => {
    const model = (await mistral()).bindTools!([weather]);
    const m = marker();
    const ask = new HumanMessage(`[call get_weather {"city":"Oslo"}] ${m}`);
    const call = (await model.invoke([ask])) as AIMessage;
    expect(call.tool_calls?.[0]).toMatchObject({ id: "call00000", name: "get_weather", args: { city: "Oslo" } });
    const reply = await model.invoke([ask, call, new ToolMessage({ content: "sunny in Oslo", tool_call_id: "call00000" })]);
    expect(reply.content).toBe("tools said: sunny in Oslo");
    expect((await sent(MISTRAL, m)).messages.slice(1)).toEqual([
      { role: "assistant", content: null, tool_calls: [expect.objectContaining({ id: "call00000" })] },
      { role: "tool", content: "sunny in Oslo", tool_call_id: "call00000" },
    ]);
    let streamed: AIMessageChunk | undefined;
    for await (const chunk of await model.stream([new HumanMessage(`[call get_weather {"city":"Rome"}] ${marker()}`)]))
      streamed = streamed ? streamed.concat(chunk) : chunk;
    expect(streamed?.tool_calls?.[0]).toMatchObject({ id: "call00000", args: { city: "Rome" } });
  });

  it("a tool result followed by the next question (the answer between them cut): an assistant turn goes between", async () => {
    const model = (await mistral()).bindTools!([weather]);
    const m = marker();
    // Ids Mistral takes as they are, so that only the order is at stake.
    await model.invoke(cutToolConversation(m, "abcdefg"));
    expect((await sent(MISTRAL, m)).messages).toEqual([
      { role: "user", content: "The tool get_weather answered: rainy in Rome" },
      { role: "user", content: `weather? ${m}` },
      { role: "assistant", content: "Looking.", tool_calls: [expect.objectContaining({ id: "abcdefgc1" })] },
      { role: "tool", content: "sunny in Oslo", tool_call_id: "abcdefgc1" },
      { role: "assistant", content: TOOL_RESULTS_READ },
      { role: "user", content: `and? ${m}` },
    ]);
  });

  it("system prompts after the conversation started go first; a conversation ending with the assistant gets a user turn", async () => {
    const model = await mistral();
    const m = marker();
    await model.invoke([new SystemMessage("You are terse."), new HumanMessage(`hi ${m}`), new SystemMessage("Answer in French.")]);
    expect((await sent(MISTRAL, m)).messages).toEqual([
      { role: "system", content: "You are terse." },
      { role: "system", content: "Answer in French." },
      { role: "user", content: `hi ${m}` },
    ]);
    const m2 = marker();
    expect((await model.invoke([new SystemMessage(`Greet ${m2}`), new AIMessage("Hello! How can I help?")])).content).toBe(
      `echo: ${EMPTY_USER_TEXT}`,
    );
    expect((await sent(MISTRAL, m2)).messages).toEqual([
      { role: "system", content: `Greet ${m2}` },
      { role: "assistant", content: "Hello! How can I help?" },
      { role: "user", content: EMPTY_USER_TEXT },
    ]);
  });

  it("sends only fields Mistral knows (random_seed, safe_prompt from the node); a system prompt alone gets a user turn", async () => {
    const model = await mistral({
      randomSeed: "7",
      safeMode: true,
      temperature: 0.2,
      maxTokens: 20,
      topP: 0.9,
      frequencyPenalty: 0.1,
      presencePenalty: 0.3,
      stopSequence: "END",
    });
    const m = marker();
    await model.invoke([new SystemMessage(`Only a system prompt ${m}`)]);
    const body = await sent(MISTRAL, m);
    expect(body).toEqual({
      model: "mistral-small-latest",
      temperature: 0.2,
      max_tokens: 20,
      top_p: 0.9,
      stop: ["END"],
      frequency_penalty: 0.1,
      presence_penalty: 0.3,
      random_seed: 7,
      safe_prompt: true,
      stream: false,
      // Mistral takes a lone system prompt too; the user turn keeps one rule: the last turn is the user's or a tool result.
      messages: [
        { role: "system", content: `Only a system prompt ${m}` },
        { role: "user", content: EMPTY_USER_TEXT },
      ],
    });
  });
});

describe("chatPerplexity: Perplexity's rules", () => {
  it("the stand-in answers Perplexity's 400 for turns not alternating, a later system message, a last turn not the user's", async () => {
    const [s, u, a] = [
      { role: "system", content: "s" },
      { role: "user", content: "q" },
      { role: "assistant", content: "a" },
    ];
    const cases: Array<[unknown[], string]> = [
      [[u, u], "user or tool message(s) should alternate with assistant message(s)"],
      [[s, u, a, a, u], "should alternate"],
      [[u, s, a, u], "should alternate"],
      [[u, a], "Last message must have role `user`."],
      [[s], "Last message must have role `user`."],
    ];
    for (const [messages, message] of cases) {
      const res = await raw(PERPLEXITY, { model: "sonar", messages });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: { message: expect.stringContaining(message), type: "invalid_message", code: 400 } });
    }
    expect((await raw(PERPLEXITY, { model: "sonar", messages: [s, s, u, a, u] })).status).toBe(200);
  });

  it("memory ending with a question whose answer failed: the two user turns go as one", async () => {
    const model = await perplexity();
    const m = marker();
    expect((await model.invoke([new HumanMessage("first try"), new HumanMessage(`second try ${m}`)])).content).toBe(
      `echo: first try\n\nsecond try ${m}`,
    );
    expect((await sent(PERPLEXITY, m)).messages).toEqual([{ role: "user", content: `first try\n\nsecond try ${m}` }]);
  });

  it("a system prompt alone gets a user turn; one after the question goes first; a lone tool result joins the question", async () => {
    const model = await perplexity();
    const m = marker();
    await model.invoke([new SystemMessage(`Only a system prompt ${m}`)]);
    expect((await sent(PERPLEXITY, m)).messages).toEqual([
      { role: "system", content: `Only a system prompt ${m}` },
      { role: "user", content: EMPTY_USER_TEXT },
    ]);
    const m2 = marker();
    await model.invoke([new SystemMessage("You are terse."), new HumanMessage(`hi ${m2}`), new SystemMessage("Answer in French.")]);
    expect((await sent(PERPLEXITY, m2)).messages.map((x) => x.role)).toEqual(["system", "system", "user"]);
    const m3 = marker();
    await model.bindTools!([weather]).invoke(cutToolConversation(m3));
    expect((await sent(PERPLEXITY, m3)).messages).toEqual([
      { role: "user", content: `The tool get_weather answered: rainy in Rome\n\nweather? ${m3}` },
      { role: "assistant", content: "Looking.", tool_calls: [expect.objectContaining({ id: "c1" })] },
      { role: "tool", content: "sunny in Oslo", tool_call_id: "c1" },
      { role: "user", content: `and? ${m3}` },
    ]);
  });
});

describe("chatDeepseek: DeepSeek's rules", () => {
  it("the stand-in answers DeepSeek's 400: deepseek-reasoner's turn order and logprobs, thinking mode's reasoning_content", async () => {
    const [u, a] = [
      { role: "user", content: "q" },
      { role: "assistant", content: "a" },
    ];
    const asked = (extra: Record<string, unknown> = {}) => ({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: "{}" } }],
      ...extra,
    });
    const result = { role: "tool", content: "sunny", tool_call_id: "call_1" };
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { model: "deepseek-reasoner", messages: [u, u] },
        "deepseek-reasoner does not support successive user or assistant messages (messages[0] and messages[1]",
      ],
      [
        { model: "deepseek-reasoner", messages: [{ role: "system", content: "s" }, a, u] },
        "The first message (except the system message) of deepseek-reasoner must be a user message",
      ],
      [{ model: "deepseek-reasoner", messages: [u], logprobs: true }, "logprobs"],
      [
        { model: "deepseek-reasoner", messages: [u, asked(), result] },
        "The `reasoning_content` in the thinking mode must be passed back to the API.",
      ],
      [{ model: "deepseek-v4-flash", messages: [u, asked(), result] }, "must be passed back"],
      [{ model: "deepseek-chat", thinking: { type: "enabled" }, messages: [u, asked(), result] }, "must be passed back"],
    ];
    for (const [body, message] of cases) {
      const res = await raw(DEEPSEEK, body);
      expect(res.status, message).toBe(400);
      expect(await res.json()).toEqual({
        error: { message: expect.stringContaining(message), type: "invalid_request_error", param: null, code: "invalid_request_error" },
      });
    }
    // deepseek-chat (no thinking) takes all of that; thinking mode takes the reasoning sent back, even empty.
    for (const messages of [
      [u, u],
      [a, u],
      [u, asked(), result],
    ])
      expect((await raw(DEEPSEEK, { model: "deepseek-chat", messages })).status).toBe(200);
    expect((await raw(DEEPSEEK, { model: "deepseek-reasoner", messages: [u, asked({ reasoning_content: "" }), result] })).status).toBe(200);
  });

  it("deepseek-reasoner: two user turns go as one, a greeting first gets a user turn before it", async () => {
    const model = await deepseek();
    const m = marker();
    await model.invoke([new HumanMessage("first try"), new HumanMessage(`second try ${m}`)]);
    expect((await sent(DEEPSEEK, m)).messages).toEqual([{ role: "user", content: `first try\n\nsecond try ${m}` }]);
    const m2 = marker();
    await model.invoke([new SystemMessage("You are terse."), new AIMessage("Hello! How can I help?"), new HumanMessage(`q ${m2}`)]);
    expect((await sent(DEEPSEEK, m2)).messages).toEqual([
      { role: "system", content: "You are terse." },
      { role: "user", content: EMPTY_USER_TEXT },
      { role: "assistant", content: "Hello! How can I help?" },
      { role: "user", content: `q ${m2}` },
    ]);
  });

  it("thinking mode: a tool-calling answer's reasoning_content goes back with its calls, asked whole or streamed", async () => {
    const model = (await deepseek()).bindTools!([weather]);
    const m = marker();
    const ask = new HumanMessage(`[call get_weather {"city":"Oslo"}] ${m}`);
    const call = (await model.invoke([ask])) as AIMessage;
    expect(call.additional_kwargs.reasoning_content).toBe("Let me think: a tool may know.");
    const reply = await model.invoke([ask, call, new ToolMessage({ content: "sunny in Oslo", tool_call_id: call.tool_calls![0].id! })]);
    expect(reply.content).toBe("tools said: sunny in Oslo");
    expect((await sent(DEEPSEEK, m)).messages[1]).toMatchObject({ role: "assistant", reasoning_content: "Let me think: a tool may know." });

    const m2 = marker();
    const ask2 = new HumanMessage(`[call get_weather {"city":"Rome"}] ${m2}`);
    let streamed: AIMessageChunk | undefined;
    for await (const chunk of await model.stream([ask2])) streamed = streamed ? streamed.concat(chunk) : chunk;
    expect(streamed?.additional_kwargs.reasoning_content).toBe("Let me think: a tool may know.");
    let text = "";
    const result = new ToolMessage({ content: "sunny in Rome", tool_call_id: streamed!.tool_calls![0].id! });
    for await (const chunk of await model.stream([ask2, streamed!, result])) text += chunk.content;
    expect(text).toBe("tools said: sunny in Rome");
    expect((await sent(DEEPSEEK, m2)).messages[1]).toMatchObject({ reasoning_content: "Let me think: a tool may know." });
  });

  it('thinking mode: tool calls made elsewhere (no reasoning kept) go with reasoning_content ""; deepseek-chat gets none', async () => {
    const conversation = (m: string) => [
      new HumanMessage(`weather? ${m}`),
      new AIMessage({ content: "", tool_calls: calls(UUID) }),
      new ToolMessage({ content: "sunny in Oslo", tool_call_id: UUID }),
    ];
    const m = marker();
    await (await deepseek({ modelName: "deepseek-chat", thinking: true })).bindTools!([weather]).invoke(conversation(m));
    expect((await sent(DEEPSEEK, m)).messages[1]).toMatchObject({ role: "assistant", reasoning_content: "" });
    const m2 = marker();
    await (await deepseek({ modelName: "deepseek-chat" })).bindTools!([weather]).invoke([...conversation(m2), new HumanMessage("again")]);
    const plain = await sent(DEEPSEEK, m2);
    expect(plain.messages[1]).not.toHaveProperty("reasoning_content");
    expect(plain.messages.map((x) => x.role)).toEqual(["user", "assistant", "tool", "user"]);
  });
});

describe("groqChat: Groq's rules", () => {
  it("the stand-in answers Groq's 400: logprobs, logit_bias, top_logprobs, n > 1, a message's name, system content parts", async () => {
    const q = { role: "user", content: "q" };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ messages: [q], logprobs: true }, "'logprobs'"],
      [{ messages: [q], logit_bias: { "50256": -100 } }, "'logit_bias'"],
      [{ messages: [q], top_logprobs: 2 }, "'top_logprobs'"],
      [{ messages: [q], n: 2 }, "'n'"],
      [{ messages: [{ ...q, name: "alice" }] }, "property 'name' is unsupported"],
      [{ messages: [{ role: "system", content: [{ type: "text", text: "s" }] }, q] }, "'messages.0.content' : value must be a string"],
    ];
    for (const [body, message] of cases) {
      const res = await raw(GROQ, { model: "llama-3.3-70b-versatile", ...body });
      expect(res.status, message).toBe(400);
      expect(await res.json()).toEqual({ error: { message: expect.stringContaining(message), type: "invalid_request_error" } });
    }
    expect((await raw(GROQ, { model: "llama-3.3-70b-versatile", messages: [q], n: 1 })).status).toBe(200);
  });

  it("our requests carry none of what Groq refuses", async () => {
    const m = marker();
    await (await groq()).bindTools!([weather]).invoke(cutToolConversation(m));
    const body = await sent(GROQ, m);
    for (const key of ["logprobs", "logit_bias", "top_logprobs", "n"]) expect(body).not.toHaveProperty(key);
    for (const message of body.messages)
      expect(Object.keys(message).every((k) => ["role", "content", "tool_calls", "tool_call_id"].includes(k))).toBe(true);
  });
});

describe("chatXAI: xAI's reasoning models", () => {
  it("the stand-in answers xAI's 400 for penalties and stop on reasoning models; grok-3 and non-reasoning stop pass", async () => {
    const q = [{ role: "user", content: "q" }];
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ model: "grok-3-mini", presence_penalty: 0.1 }, "Model grok-3-mini does not support parameter presencePenalty."],
      [{ model: "grok-4", frequency_penalty: 0.1 }, "Model grok-4 does not support parameter frequencyPenalty."],
      [{ model: "grok-4-1-fast-reasoning", stop: ["END"] }, "Model grok-4-1-fast-reasoning does not support parameter stop."],
      [{ model: "grok-4.20-0309-non-reasoning", presence_penalty: 0 }, "does not support parameter presencePenalty."],
    ];
    for (const [body, error] of cases) {
      const res = await raw(XAI, { ...body, messages: q });
      expect(res.status, error).toBe(400);
      expect(await res.json()).toEqual({ code: "Client specified an invalid argument", error: expect.stringContaining(error) });
    }
    for (const body of [
      { model: "grok-3", presence_penalty: 0.1, frequency_penalty: 0.1, stop: ["END"] },
      { model: "grok-4.20-0309-non-reasoning", stop: ["END"] },
    ])
      expect((await raw(XAI, { ...body, messages: q })).status).toBe(200);
  });

  it("a reasoning model gets neither the node's penalties nor its stop words; grok-3 gets them all, and answers", async () => {
    const m = marker();
    expect((await (await xai()).invoke([new HumanMessage(`hi ${m}`)])).content).toBe(`echo: hi ${m}`);
    expect(await sent(XAI, m)).toEqual({
      model: "grok-3-mini",
      temperature: 0.3,
      max_tokens: 64,
      stream: false,
      messages: [{ role: "user", content: `hi ${m}` }],
    });
    const m2 = marker();
    await (await xai({ modelName: "grok-4.20-0309-non-reasoning" })).invoke([new HumanMessage(`hi ${m2}`)]);
    const nonReasoning = await sent(XAI, m2);
    expect(nonReasoning).toMatchObject({ stop: ["END"] });
    expect(nonReasoning).not.toHaveProperty("presence_penalty");
    const m3 = marker();
    await (await xai({ modelName: "grok-3" })).invoke([new HumanMessage(`hi ${m3}`)]);
    expect(await sent(XAI, m3)).toMatchObject({ presence_penalty: 0.4, frequency_penalty: 0.2, stop: ["END"] });
  });
});

describe("chatCerebras: Cerebras' unsupported fields", () => {
  it("the stand-in answers Cerebras' 400 for the penalties and logit_bias, its 422 for stream_options", async () => {
    const q = [{ role: "user", content: "q" }];
    for (const [field, value, status] of [
      ["frequency_penalty", 0.2, 400],
      ["presence_penalty", 0, 400],
      ["logit_bias", { "1": 1 }, 400],
      ["stream_options", { include_usage: true }, 422],
    ] as const) {
      const res = await raw(CEREBRAS, { model: "llama-3.3-70b", messages: q, stream: true, [field]: value });
      expect(res.status, field).toBe(status);
      expect(await res.json()).toEqual({
        message: `body.${field}: property 'body.${field}' is unsupported`,
        type: "invalid_request_error",
        param: "validation_error",
        code: "wrong_api_format",
      });
    }
  });

  it("the node's penalties are left out, its other sampling inputs sent; a tool loop is answered", async () => {
    const m = marker();
    const reply = await (await cerebras()).bindTools!([weather]).invoke(cutToolConversation(m));
    expect(reply.content).toBe(`echo: and? ${m}`);
    const body = await sent(CEREBRAS, m);
    expect(body).toMatchObject({ model: "llama-3.3-70b", temperature: 0.3, max_tokens: 64, stop: ["END"] });
    expect(body).not.toHaveProperty("frequency_penalty");
    expect(body).not.toHaveProperty("presence_penalty");
  });
});

describe("chatFireworks: max_tokens over 4096 only streamed", () => {
  it("the stand-in answers Fireworks' 400 for max_tokens > 4096 unstreamed; streamed or 4096 it answers", async () => {
    const q = [{ role: "user", content: "q" }];
    const res = await raw(FIREWORKS, { model: "m", messages: q, max_tokens: 4097, stream: false });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { message: "Requests with max_tokens > 4096 must have stream=true", param: "max_tokens", code: "BAD_REQUEST", type: "error" },
    });
    expect((await raw(FIREWORKS, { model: "m", messages: q, max_tokens: 4097, stream: true })).status).toBe(200);
    expect((await raw(FIREWORKS, { model: "m", messages: q, max_tokens: 4096 })).status).toBe(200);
  });

  it("a whole answer with max tokens 8192 is asked as a stream and gathered, tool calls too; 4096 goes unstreamed", async () => {
    const model = (await fireworks()).bindTools!([weather]);
    const m = marker();
    const call = (await model.invoke([new HumanMessage(`[call get_weather {"city":"Oslo"}] ${m}`)])) as AIMessage;
    expect(call.tool_calls?.[0]).toMatchObject({ name: "get_weather", args: { city: "Oslo" } });
    expect(await sent(FIREWORKS, m)).toMatchObject({ max_tokens: 8192, stream: true });
    const m2 = marker();
    expect((await (await fireworks({ maxTokens: 4096 })).invoke([new HumanMessage(`long é ✓ ${m2}`)])).content).toBe(
      `echo: long é ✓ ${m2}`,
    );
    expect(await sent(FIREWORKS, m2)).toMatchObject({ max_tokens: 4096, stream: false });
  });
});
