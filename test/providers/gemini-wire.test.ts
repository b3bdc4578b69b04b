// chatGoogleGenerativeAI's wire format against the Gemini stand-in (test/standin/gemini.mjs), which refuses
// what the Gemini API refuses with its 400: the stand-in's rules themselves, then what our flows hand the
// model (an empty question or a system prompt alone, tool schemas written by zod or by hand, structured
// output with a JSON array, tool-call turns, history opening with a greeting, two system messages, memory
// whose last answer failed), each checked to reach the service as a request it accepts.
import { env } from "cloudflare:workers";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { cutToolConversation, weather } from "./wire-conversations";
import { invokeStructured, structuredSchema } from "../../src/engine/agentflow/structured";
import type { Env } from "../../src/env";
import { buildChatModel } from "../../src/providers/chat/registry";
import type { ProviderDeps } from "../../src/providers/types";
import { getCredentialData } from "../../src/services/credentials";
import { edge, graph, llm, outputOf, run, start } from "../agentflow/helpers";
import { credential, db, marker, runtimeWith } from "../engine/helpers";

const geminiUrl = () => inject("geminiUrl");

const deps = (): ProviderDeps => ({
  env: { ENVIRONMENT: env.ENVIRONMENT, GOOGLE_GENERATIVE_AI_BASE_URL: geminiUrl() },
  getCredential: (id) => getCredentialData({ db: db(), env: env as unknown as Env }, id),
});

type Body = Record<string, unknown> & { contents?: Array<{ role: string; parts: unknown[] }> };
/** The body of the last request the stand-in received with `m` in it. */
const sent = async (m: string): Promise<Body> =>
  ((await (await fetch(`${geminiUrl()}/requests?contains=${encodeURIComponent(m)}`)).json()) as Array<{ body: Body }>).at(-1)!.body;

const build = async () =>
  buildChatModel(
    "chatGoogleGenerativeAI",
    { modelName: "gemini-2.0-flash", credential: await credential("googleGenerativeAI", { googleGenerativeAPIKey: "AIza-wire" }) },
    deps(),
  );

const raw = (body: Record<string, unknown>) =>
  fetch(`${geminiUrl()}/v1beta/models/gemini-2.0-flash:generateContent`, {
    method: "POST",
    headers: { "x-goog-api-key": "k", "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("chatGoogleGenerativeAI: what our flows send is a request the Gemini API accepts", () => {
  it("the stand-in answers the Gemini API's 400 for the turn order, empty parts and fields the API lacks", async () => {
    const user = (text: string) => ({ role: "user", parts: [{ text }] });
    const call = (name: string) => ({ functionCall: { name, args: {} } });
    const answer = (name: string) => ({ functionResponse: { name, response: { content: "ok" } } });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ contents: [] }, "contents is not specified"],
      [{ contents: [{ role: "assistant", parts: [{ text: "hi" }] }] }, "Please use a valid role: user, model."],
      [{ contents: [{ role: "user", parts: [] }] }, "contents.parts must not be empty"],
      [{ contents: [{ role: "user", parts: [{}] }] }, "required oneof field 'data' must have one initialized field"],
      [{ contents: [{ role: "model", parts: [call("f")] }] }, "function call turn comes immediately after a user turn"],
      [{ contents: [{ role: "user", parts: [answer("f")] }] }, "function response turn comes immediately after a function call turn"],
      [
        { contents: [user("q"), { role: "model", parts: [call("f"), call("g")] }, { role: "user", parts: [answer("f")] }] },
        "the number of function response parts is equal to the number of function call parts",
      ],
      [{ contents: [user("q")], tool_choice: { type: "function" } }, 'Unknown name "tool_choice"'],
      [
        {
          contents: [user("q")],
          tools: [{ functionDeclarations: [{ name: "f", parameters: { type: "object", additionalProperties: false } }] }],
        },
        'Unknown name "additionalProperties"',
      ],
      [
        { contents: [user("q")], tools: [{ functionDeclarations: [{ name: "f", parameters: { type: ["string", "null"] } }] }] },
        "parameters.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type)",
      ],
      [
        { contents: [user("q")], tools: [{ functionDeclarations: [{ name: "f", parameters: { type: "string", format: "email" } }] }] },
        "only 'enum' and 'date-time' are supported for STRING type",
      ],
      [{ contents: [user("q")], tools: [{ functionDeclarations: [{ name: "get weather" }] }] }, "Invalid function name"],
    ];
    for (const [body, message] of cases) {
      const res = await raw(body);
      expect(res.status, message).toBe(400);
      expect(await res.json()).toMatchObject({
        error: { code: 400, status: "INVALID_ARGUMENT", message: expect.stringContaining(message) },
      });
    }
    // A call answered in the next turn (a question may follow the responses in it) is what the API takes.
    const ok = await raw({
      contents: [
        user("q"),
        { role: "model", parts: [{ text: "Let me look." }, call("f")] },
        { role: "user", parts: [answer("f"), { text: "and?" }] },
      ],
    });
    expect(ok.status).toBe(200);
  });

  it("an empty question (a blank chat or schedule start) and a system prompt alone go as a stand-in user turn", async () => {
    const model = await build();
    const m = marker();
    expect((await model.invoke([new SystemMessage(`Fill the form ${m}`), new HumanMessage("")])).content).toBe("echo: Please continue.");
    expect(await sent(m)).toMatchObject({
      systemInstruction: { parts: [{ text: `Fill the form ${m}` }] },
      contents: [{ role: "user", parts: [{ text: "Please continue." }] }],
    });
    // Before: no contents at all, which the API refuses ("contents is not specified").
    const m2 = marker();
    expect((await model.invoke([new SystemMessage(`Only a system prompt ${m2}`)])).content).toBe("echo: Please continue.");
    expect((await sent(m2)).contents).toEqual([{ role: "user", parts: [{ text: "Please continue." }] }]);
  });

  it("an agentflow LLM node with only a system message, asked a blank question, answers", async () => {
    const m = marker();
    const cred = await credential("googleGenerativeAI", { googleGenerativeAPIKey: "AIza-flow" });
    const g = graph(
      [
        start(),
        llm("llmAgentflow_0", {
          llmModel: "chatGoogleGenerativeAI",
          llmModelConfig: { modelName: "gemini-2.0-flash", credential: cred, streaming: false },
          llmMessages: [{ role: "system", content: `Write today's digest ${m}` }],
        }),
      ],
      [edge("startAgentflow_0", "llmAgentflow_0")],
    );
    const out = await run(g, { question: "" }, { ctx: { runtime: runtimeWith({ GOOGLE_GENERATIVE_AI_BASE_URL: geminiUrl() }) } });
    expect(out.errorStatus).toBeUndefined();
    expect(outputOf(out.executedData, "llmAgentflow_0")?.content).toBe("echo: Please continue.");
    expect(await sent(m)).toMatchObject({
      systemInstruction: { parts: [{ text: `Write today's digest ${m}` }] },
      contents: [{ role: "user", parts: [{ text: "Please continue." }] }],
    });
  });

  it("tool schemas go in Gemini's dialect: records, nullable fields, consts, bounds, string formats it lacks translated", async () => {
    const lookup = tool(async () => "found", {
      name: "lookup",
      description: "looks a place up",
      schema: z.object({
        city: z.string().describe("a city"),
        tags: z.record(z.string(), z.string()),
        note: z.string().nullable(),
        kind: z.literal("city"),
        count: z.number().int().positive(),
        email: z.string().email(),
        when: z.string().datetime(),
        size: z.enum(["s", "m"]),
      }),
    });
    const model = (await build()).bindTools!([lookup]);
    const m = marker();
    const reply = (await model.invoke([new HumanMessage(`[call lookup {"city":"Oslo"}] ${m}`)])) as AIMessage;
    expect(reply.tool_calls).toEqual([expect.objectContaining({ name: "lookup", args: { city: "Oslo" } })]);
    const [decl] = ((await sent(m)).tools as Array<{ functionDeclarations: Array<Record<string, unknown>> }>)[0].functionDeclarations;
    expect(decl).toEqual({
      name: "lookup",
      description: "looks a place up",
      parameters: {
        type: "object",
        properties: {
          city: { type: "string", description: "a city" },
          tags: { type: "object" },
          note: { type: "string", nullable: true },
          kind: { type: "string", enum: ["city"] },
          count: { type: "integer", maximum: 9007199254740991 },
          email: { type: "string", pattern: expect.any(String) },
          when: { type: "string", format: "date-time", pattern: expect.any(String) },
          size: { type: "string", enum: ["s", "m"] },
        },
        required: ["city", "tags", "note", "kind", "count", "email", "when", "size"],
      },
    });
  });

  it("structured output with a JSON array field (an LLM node's jsonArray row) is a schema Gemini takes", async () => {
    const model = await build();
    const m = marker();
    const schema = structuredSchema(
      [
        { key: "rows", type: "jsonArray" },
        { key: "status", type: "enum", enumValues: "open, closed" },
      ],
      "LLM",
    )!;
    const { value } = await invokeStructured(
      model,
      [new HumanMessage(`[so {"rows":[{"a":1}],"status":"open"}] list ${m}`)],
      schema,
      "LLM",
      new AbortController().signal,
    );
    expect(value).toEqual({ rows: [{ a: 1 }], status: "open" });
    const [decl] = ((await sent(m)).tools as Array<{ functionDeclarations: Array<{ parameters: Record<string, any> }> }>)[0]
      .functionDeclarations;
    expect(decl.parameters.properties.rows).toEqual({ type: "array", items: { type: "object" } });
  });

  it("a turn of tool calls with blank text, parallel calls and their results, then a question: one turn each, in order", async () => {
    const model = (await build()).bindTools!([weather]);
    const m = marker();
    const calls = [
      { id: "c1", name: "get_weather", args: { city: "Oslo" }, type: "tool_call" as const },
      { id: "c2", name: "get_weather", args: { city: "Rome" }, type: "tool_call" as const },
    ];
    const reply = await model.invoke([
      new HumanMessage(`weather? ${m}`),
      new AIMessage({ content: "\n\n", tool_calls: calls }),
      new ToolMessage({ content: "sunny in Oslo", tool_call_id: "c1" }),
      new ToolMessage({ content: "rainy in Rome", tool_call_id: "c2" }),
      new HumanMessage(`and tomorrow? ${m}`),
    ]);
    expect(reply.content).toBe(`echo: and tomorrow? ${m}`);
    expect((await sent(m)).contents).toEqual([
      { role: "user", parts: [{ text: `weather? ${m}` }] },
      {
        role: "model",
        parts: [
          { functionCall: { name: "get_weather", args: { city: "Oslo" } } },
          { functionCall: { name: "get_weather", args: { city: "Rome" } } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "get_weather", response: { content: "sunny in Oslo" } } },
          { functionResponse: { name: "get_weather", response: { content: "rainy in Rome" } } },
          { text: `and tomorrow? ${m}` },
        ],
      },
    ]);
  });

  it("a tool result cut from its call goes as user text; a call cut from its result goes without it", async () => {
    const model = await build();
    const m = marker();
    const reply = await model.invoke(cutToolConversation(m));
    expect(reply.content).toBe(`echo: and? ${m}`);
    expect((await sent(m)).contents).toEqual([
      { role: "user", parts: [{ text: "The tool get_weather answered: rainy in Rome" }, { text: `weather? ${m}` }] },
      { role: "model", parts: [{ text: "Looking." }, { functionCall: { name: "get_weather", args: { city: "Oslo" } } }] },
      {
        role: "user",
        parts: [{ functionResponse: { name: "get_weather", response: { content: "sunny in Oslo" } } }, { text: `and? ${m}` }],
      },
    ]);
  });

  it("history opening with a greeting, memory whose last answer failed, two system messages: a request the API takes", async () => {
    const model = await build();
    const m = marker();
    const reply = await model.invoke([
      new SystemMessage("You are terse."),
      new AIMessage("Hello! How can I help?"),
      new HumanMessage("the question whose answer failed"),
      new HumanMessage(`asked again ${m}`),
      new SystemMessage("Answer in English."),
    ]);
    expect(reply.content).toContain(`asked again ${m}`);
    expect(await sent(m)).toMatchObject({
      systemInstruction: { parts: [{ text: "You are terse.\n\nAnswer in English." }] },
      contents: [
        { role: "model", parts: [{ text: "Hello! How can I help?" }] },
        { role: "user", parts: [{ text: "the question whose answer failed" }, { text: `asked again ${m}` }] },
      ],
    });
  });
});
