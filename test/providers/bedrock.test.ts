// awsChatBedrock and AWSBedrockEmbeddings against the Bedrock stand-in (test/standin/bedrock.mjs),
// which recomputes every request's SigV4 signature with the test key's secret: the signer checked
// against AWS's published "get-vanilla" vector, Converse JSON and ConverseStream (binary
// event-stream framing) through the registry, a tool call in a Tool Agent chatflow, InvokeModel
// embeddings (Titan, Cohere), a wrong secret as the 403 AWS answers, a session token sent; the stand-in
// refusing what Converse refuses, and the conversations our flows send reaching it as valid requests.
import { env } from "cloudflare:workers";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, inject, it } from "vitest";
import { z } from "zod";
import type { Env } from "../../src/env";
import { crc32, eventStreamMessages } from "../../src/providers/aws/event-stream";
import { signRequest } from "../../src/providers/aws/sigv4";
import { buildChatModel } from "../../src/providers/chat/registry";
import { invokeStructured } from "../../src/engine/agentflow/structured";
import { buildEmbeddings } from "../../src/providers/embeddings/registry";
import type { ProviderDeps } from "../../src/providers/types";
import { getCredentialData } from "../../src/services/credentials";
import { edge, graph, node, run, start } from "../agentflow/helpers";
import { callOf, toolAgentFlow } from "../engine/agents-flows";
import { credential, db, makeCtx, marker, recordingSink, runFlow, runtimeWith } from "../engine/helpers";
import { json } from "../helpers";
import { setVars } from "../security/helpers";

const bedrockUrl = () => inject("bedrockUrl");
const KEY = { awsKey: "AKIAEDGEFLOWTEST", awsSecret: "edgeflow/standin+Secret1" };

const deps = (over: Partial<ProviderDeps["env"]> = {}): ProviderDeps => ({
  env: { ENVIRONMENT: env.ENVIRONMENT, AWS_BEDROCK_BASE_URL: bedrockUrl(), ...over },
  getCredential: (id) => getCredentialData({ db: db(), env: env as unknown as Env }, id),
});

type Received = { path: string; headers: Record<string, string>; body: Record<string, unknown> };
const received = async (m: string): Promise<Received[]> =>
  (await fetch(`${bedrockUrl()}/requests?contains=${encodeURIComponent(m)}`)).json();

describe("AWS Signature Version 4", () => {
  it("signs AWS's get-vanilla test vector to its published signature", async () => {
    const headers = await signRequest({
      method: "GET",
      url: "https://example.amazonaws.com/",
      headers: {},
      region: "us-east-1",
      service: "service",
      credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" },
      date: new Date("2015-08-30T12:36:00Z"),
    });
    expect(headers["x-amz-date"]).toBe("20150830T123600Z");
    expect(headers.authorization).toBe(
      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, " +
        "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
    );
  });

  it("reads event-stream messages split anywhere and refuses a bad CRC", async () => {
    expect(crc32(new TextEncoder().encode("123456789"))).toBe(0xcbf43926);
    // one message: no headers, payload "{}"
    const msg = new Uint8Array(18);
    const view = new DataView(msg.buffer);
    view.setUint32(0, 18);
    view.setUint32(4, 0);
    view.setUint32(8, crc32(msg.subarray(0, 8)));
    msg.set(new TextEncoder().encode("{}"), 12);
    view.setUint32(14, crc32(msg.subarray(0, 14)));
    async function* parts(...chunks: Uint8Array[]) {
      yield* chunks;
    }
    const got = [];
    for await (const m of eventStreamMessages(parts(msg.subarray(0, 5), msg.subarray(5)))) got.push(new TextDecoder().decode(m.payload));
    expect(got).toEqual(["{}"]);
    const broken = msg.slice();
    broken[13] ^= 1;
    await expect(async () => {
      for await (const _ of eventStreamMessages(parts(broken))) void _;
    }).rejects.toThrow(/CRC mismatch/);
  });
});

describe("awsChatBedrock", () => {
  const build = async (over: Record<string, unknown> = {}, cred: Record<string, unknown> = KEY) =>
    buildChatModel(
      "awsChatBedrock",
      { region: "eu-west-1", model: "anthropic.claude-haiku-4-5-20251001-v1:0", credential: await credential("awsApi", cred), ...over },
      deps(),
    );

  it("answers through Converse, signed, with Flowise's defaults and the system prompt", async () => {
    const model = await build();
    const m = marker();
    const answer = await model.invoke([new SystemMessage("be brief"), new HumanMessage(`hello ${m}`)]);
    expect(answer.content).toBe(`echo: hello ${m}`);
    const [req] = await received(m);
    expect(req.path).toBe("/model/anthropic.claude-haiku-4-5-20251001-v1%3A0/converse");
    expect(req.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAEDGEFLOWTEST\/\d{8}\/eu-west-1\/bedrock\/aws4_request/);
    expect(req.headers["x-amz-security-token"]).toBeUndefined();
    expect(req.body).toMatchObject({
      system: [{ text: "be brief" }],
      inferenceConfig: { temperature: 0.7, maxTokens: 200 },
      messages: [{ role: "user", content: [{ text: `hello ${m}` }] }],
    });
  });

  it("streams ConverseStream's binary event stream token by token", async () => {
    const model = await build({ temperature: "0.2", max_tokens_to_sample: "50" });
    const m = marker();
    const tokens: string[] = [];
    for await (const chunk of await model.stream([new HumanMessage(`stream me ${m}`)]))
      if (chunk.content) tokens.push(String(chunk.content));
    expect(tokens.join("")).toBe(`echo: stream me ${m}`);
    expect(tokens.length).toBeGreaterThan(2);
    const [req] = await received(m);
    expect(req.path).toMatch(/\/converse-stream$/);
    expect(req.body).toMatchObject({ inferenceConfig: { temperature: 0.2, maxTokens: 50 } });
  });

  it("offers tools as toolConfig and reads toolUse back, JSON and streamed", async () => {
    const weather = tool(async ({ city }) => `sunny in ${city}`, {
      name: "get_weather",
      description: "the weather in a city",
      schema: z.object({ city: z.string() }),
    });
    const model = (await build()).bindTools!([weather]);
    const m = marker();
    const answer = await model.invoke([new HumanMessage(`${callOf("get_weather", { city: "Oslo" })} ${m}`)]);
    expect(answer.tool_calls).toEqual([expect.objectContaining({ name: "get_weather", args: { city: "Oslo" } })]);
    const [req] = await received(m);
    expect(req.body.toolConfig).toMatchObject({
      tools: [{ toolSpec: { name: "get_weather", inputSchema: { json: { type: "object" } } } }],
    });
    let streamed: ReturnType<typeof Object> | undefined;
    for await (const chunk of await model.stream([new HumanMessage(`${callOf("get_weather", { city: "Rome" })} ${marker()}`)]))
      streamed = streamed ? (streamed as never as { concat(c: unknown): unknown }).concat(chunk) : chunk;
    expect((streamed as { tool_calls: unknown[] }).tool_calls).toEqual([
      expect.objectContaining({ name: "get_weather", args: { city: "Rome" } }),
    ]);
  });

  it("structured output forces its tool as Converse's toolChoice {tool: {name}} (not LangChain's OpenAI-shaped object)", async () => {
    const model = await build();
    const m = marker();
    const schema = z.object({ city: z.string() });
    const { value } = await invokeStructured(
      model,
      [new HumanMessage(`[so {"city":"Lima"}] where ${m}`)],
      schema,
      "Test",
      new AbortController().signal,
    );
    expect(value).toEqual({ city: "Lima" });
    const [req] = await received(m);
    const toolConfig = req.body.toolConfig as { tools: Array<{ toolSpec: { name: string } }>; toolChoice: unknown };
    expect(toolConfig.toolChoice).toEqual({ tool: { name: toolConfig.tools[0].toolSpec.name } });
  });

  it("runs Flowise's Tool Agent chatflow: calculator call, result, answer (streamed too)", async () => {
    const flow = JSON.parse(toolAgentFlow());
    const node = flow.nodes.find((n: { id: string }) => n.id === "chatOpenAI_0");
    node.data.name = "awsChatBedrock";
    node.data.inputs = { region: "us-east-1", model: "amazon.nova-lite-v1:0" };
    node.data.credential = await credential("awsApi", KEY);
    const runtime = runtimeWith({ AWS_BEDROCK_BASE_URL: bedrockUrl() });
    const result = await runFlow(
      JSON.stringify(flow),
      makeCtx(`6 times 7? ${callOf("calculator", { input: "6*7" })} ${marker()}`, { runtime }),
    );
    expect(result.text).toBe("tools said: 42");
    const rec = recordingSink();
    const streamed = await runFlow(
      JSON.stringify(flow),
      makeCtx(`6 times 8? ${callOf("calculator", { input: "6*8" })} ${marker()}`, { runtime }),
      rec.sink,
    );
    expect(streamed.text).toBe("tools said: 48");
    expect(rec.tokens.length).toBeGreaterThan(1);
  });

  it("answers a Tool Agent chatflow's tool call through POST /prediction", async () => {
    const flow = JSON.parse(toolAgentFlow());
    const node = flow.nodes.find((n: { id: string }) => n.id === "chatOpenAI_0");
    node.data.name = "awsChatBedrock";
    node.data.inputs = { region: "us-west-2", model: "anthropic.claude-sonnet-4-5-20250929-v1:0" };
    node.data.credential = await credential("awsApi", KEY);
    const restore = setVars({ AWS_BEDROCK_BASE_URL: bedrockUrl() });
    try {
      const id = (await json("POST", "/chatflows", { body: { name: "bedrock tool agent", flowData: JSON.stringify(flow) } })).id;
      const m = marker();
      const answer = await json("POST", `/prediction/${id}`, {
        body: { question: `6 times 9? ${callOf("calculator", { input: "6*9" })} ${m}` },
      });
      expect(answer.text).toBe("tools said: 54");
      const reqs = await received(m);
      expect(reqs.length).toBeGreaterThanOrEqual(2);
      expect(reqs[0].headers.authorization).toMatch(/\/us-west-2\/bedrock\/aws4_request/);
    } finally {
      restore();
    }
  });

  it("sends a session token as x-amz-security-token (signed)", async () => {
    const model = await build({}, { ...KEY, awsSession: "session-token-123" });
    const m = marker();
    await model.invoke([new HumanMessage(`token ${m}`)]);
    const [req] = await received(m);
    expect(req.headers["x-amz-security-token"]).toBe("session-token-123");
    expect(req.headers.authorization).toMatch(/SignedHeaders=[^,]*x-amz-security-token/);
  });

  it("a wrong secret is a 502 naming AWS's 403, without the secret", async () => {
    const model = await build({}, { ...KEY, awsSecret: "not-the-secret-xyz" });
    const err = await model.invoke([new HumanMessage(`bad ${marker()}`)]).catch((e) => e);
    expect(err).toMatchObject({
      status: 502,
      message: expect.stringMatching(/AWS Bedrock answered 403: The request signature we calculated/),
    });
    expect(String(err.message)).not.toContain("not-the-secret-xyz");
  });

  it("bad config is a 400 naming the input", async () => {
    await expect(build({ customModel: "my-model" })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("customModel"),
    });
    await expect(build({ region: "mars" })).rejects.toMatchObject({ status: 400, message: expect.stringContaining("region") });
    await expect(build({}, {})).rejects.toMatchObject({ status: 400, message: expect.stringContaining("awsApi") });
  });
});

describe("AWSBedrockEmbeddings", () => {
  it("embeds with Titan (one text a call) and Cohere (input_type), signed", async () => {
    const cred = await credential("awsApi", KEY);
    const titan = await buildEmbeddings(
      "AWSBedrockEmbeddings",
      { region: "us-east-1", model: "amazon.titan-embed-text-v2:0", credential: cred },
      deps(),
    );
    const m = marker();
    const vectors = await titan.embedDocuments([`apples and pears ${m}`, `line\nbreak ${m}`]);
    expect(vectors).toHaveLength(2);
    expect(vectors[0]).toHaveLength(64);
    const reqs = await received(m);
    expect(reqs.map((r) => r.path)).toEqual(Array(2).fill("/model/amazon.titan-embed-text-v2%3A0/invoke"));
    expect(reqs.map((r) => r.body.inputText)).toContain(`line break ${m}`);

    const cohere = await buildEmbeddings(
      "AWSBedrockEmbeddings",
      { region: "us-east-1", model: "cohere.embed-english-v3", inputType: "search_document", credential: cred },
      deps(),
    );
    const m2 = marker();
    expect(await cohere.embedQuery(`pears ${m2}`)).toHaveLength(64);
    const [req] = await received(m2);
    expect(req.body).toMatchObject({ texts: [`pears ${m2}`], input_type: "search_document", truncate: "END" });
    await expect(
      buildEmbeddings("AWSBedrockEmbeddings", { model: "cohere.embed-english-v3", credential: cred }, deps()),
    ).rejects.toMatchObject({
      status: 400,
    });
  });
});

// The stand-in refuses what Converse refuses (test/standin/bedrock.mjs); these are the conversations
// our flows hand the model, each checked to reach the service as a request it accepts.
describe("awsChatBedrock: what our flows send is a request Converse accepts", () => {
  const build = async () =>
    buildChatModel(
      "awsChatBedrock",
      { region: "eu-west-1", model: "anthropic.claude-haiku-4-5-20251001-v1:0", credential: await credential("awsApi", KEY) },
      deps(),
    );
  const sent = async (m: string) => (await received(m)).at(-1)!.body;
  const PLACEHOLDER = { role: "user", content: [{ text: "Please continue." }] };
  const weather = tool(async ({ city }) => `sunny in ${city}`, {
    name: "get_weather",
    description: "the weather in a city",
    schema: z.object({ city: z.string() }),
  });
  const calls = [{ id: "tooluse_w1", name: "get_weather", args: { city: "Oslo" }, type: "tool_call" as const }];

  it("the stand-in answers AWS's ValidationException for what Converse refuses", async () => {
    const converse = async (body: Record<string, unknown>) => {
      const url = `${bedrockUrl()}/model/m/converse`;
      const text = JSON.stringify(body);
      const headers = { "content-type": "application/json" };
      const signed = await signRequest({
        method: "POST",
        url,
        headers,
        body: text,
        region: "us-east-1",
        service: "bedrock",
        credentials: { accessKeyId: KEY.awsKey, secretAccessKey: KEY.awsSecret },
      });
      return fetch(url, { method: "POST", headers: { ...headers, ...signed }, body: text });
    };
    const user = (text: string) => ({ role: "user", content: [{ text }] });
    const use = { role: "assistant", content: [{ toolUse: { toolUseId: "t1", name: "get_weather", input: {} } }] };
    const toolConfig = { tools: [{ toolSpec: { name: "get_weather", inputSchema: { json: { type: "object" } } } }] };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ messages: [{ role: "assistant", content: [{ text: "hi" }] }, user("q")] }, "A conversation must start with a user message"],
      [{ messages: [user("a"), user("b")] }, "A conversation must alternate between user and assistant roles"],
      [{ messages: [user(" ")] }, "The text field in the ContentBlock object at messages.0.content.0 is blank"],
      [
        { messages: [user("q"), use, user("go on")], toolConfig },
        "Expected toolResult blocks at messages.2.content for the following Ids: t1",
      ],
      [
        { messages: [{ role: "user", content: [{ toolResult: { toolUseId: "t9", content: [{ text: "x" }] } }] }], toolConfig },
        "exceeds the number",
      ],
      [{ messages: [user("q"), use, { role: "user", content: [{ toolResult: { toolUseId: "t1", content: [] } }] }] }, "toolConfig field"],
      [{ messages: [user("q")], inferenceConfig: { temperature: 1.5 } }, "inferenceConfig.temperature"],
      [
        { messages: [user("q")], toolConfig: { tools: [{ toolSpec: { name: "get weather", inputSchema: { json: {} } } }] } },
        "toolSpec.name",
      ],
    ];
    for (const [body, message] of cases) {
      const res = await converse(body);
      expect(res.status).toBe(400);
      expect(res.headers.get("x-amzn-errortype")).toBe("ValidationException");
      expect(((await res.json()) as { message: string }).message).toContain(message);
    }
  });

  it("an empty question (an agentflow started by a form) and a system prompt alone go as a stand-in user turn", async () => {
    const model = await build();
    const m = marker();
    expect((await model.invoke([new SystemMessage(`Fill the form ${m}`), new HumanMessage("")])).content).toBe("echo: Please continue.");
    expect(await sent(m)).toMatchObject({ system: [{ text: `Fill the form ${m}` }], messages: [PLACEHOLDER] });
    const m2 = marker();
    await model.invoke([new SystemMessage(`Only a system prompt ${m2}`), new SystemMessage(" ")]);
    expect(await sent(m2)).toMatchObject({ system: [{ text: `Only a system prompt ${m2}` }], messages: [PLACEHOLDER] });
  });

  it("history opening with the assistant's greeting gets a user turn before it", async () => {
    const model = await build();
    const m = marker();
    const answer = await model.invoke([new AIMessage("Hi! How can I help?"), new HumanMessage(`a question ${m}`)]);
    expect(answer.content).toBe(`echo: a question ${m}`);
    expect((await sent(m)).messages).toEqual([
      PLACEHOLDER,
      { role: "assistant", content: [{ text: "Hi! How can I help?" }] },
      { role: "user", content: [{ text: `a question ${m}` }] },
    ]);
  });

  it("tool calls and results in the history of a call without tools (an LLM node after an agent) go as text", async () => {
    const model = await build();
    const m = marker();
    await model.invoke([
      new HumanMessage(`weather? ${m}`),
      new AIMessage({ content: "", tool_calls: calls }),
      new ToolMessage({ content: "sunny in Oslo", tool_call_id: "tooluse_w1", name: "get_weather" }),
      new AIMessage("It is sunny."),
      new HumanMessage("and tomorrow?"),
    ]);
    const body = await sent(m);
    expect(body).not.toHaveProperty("toolConfig");
    expect(body.messages).toEqual([
      { role: "user", content: [{ text: `weather? ${m}` }] },
      { role: "assistant", content: [{ text: 'Tool call get_weather: {"city":"Oslo"}' }] },
      { role: "user", content: [{ text: "Tool result get_weather: sunny in Oslo" }] },
      { role: "assistant", content: [{ text: "It is sunny." }] },
      { role: "user", content: [{ text: "and tomorrow?" }] },
    ]);
  });

  it("with tools, an AI turn of tool calls with only whitespace text goes as its toolUse blocks alone", async () => {
    const model = (await build()).bindTools!([weather]);
    const m = marker();
    await model.invoke([
      new HumanMessage(`weather? ${m}`),
      new AIMessage({ content: "\n\n", tool_calls: calls }),
      new ToolMessage({ content: "sunny in Oslo", tool_call_id: "tooluse_w1" }),
    ]);
    expect((await sent(m)).messages).toEqual([
      { role: "user", content: [{ text: `weather? ${m}` }] },
      { role: "assistant", content: [{ toolUse: { toolUseId: "tooluse_w1", name: "get_weather", input: { city: "Oslo" } } }] },
      { role: "user", content: [{ toolResult: { toolUseId: "tooluse_w1", content: [{ text: "sunny in Oslo" }] } }] },
    ]);
  });

  it("a tool that answered nothing (or blanks) is said to have: Converse refuses a blank text block in a tool result", async () => {
    const model = (await build()).bindTools!([weather]);
    const m = marker();
    const two = [
      { id: "tooluse_e1", name: "get_weather", args: { city: "Oslo" }, type: "tool_call" as const },
      { id: "tooluse_e2", name: "get_weather", args: { city: "Rome" }, type: "tool_call" as const },
    ];
    await model.invoke([
      new HumanMessage(`weather? ${m}`),
      new AIMessage({ content: "", tool_calls: two }),
      new ToolMessage({ content: "", tool_call_id: "tooluse_e1" }),
      new ToolMessage({ content: " \n", tool_call_id: "tooluse_e2" }),
    ]);
    const nothing = [{ text: "(the tool answered nothing)" }];
    expect(((await sent(m)) as { messages: unknown[] }).messages.at(-1)).toEqual({
      role: "user",
      content: [
        { toolResult: { toolUseId: "tooluse_e1", content: nothing } },
        { toolResult: { toolUseId: "tooluse_e2", content: nothing } },
      ],
    });
  });

  it("memory ending with a question whose answer failed is one user turn; two system messages are two system blocks", async () => {
    const model = await build();
    const m = marker();
    await model.invoke([
      new SystemMessage("You are terse."),
      new HumanMessage("first try"),
      new AIMessage(""),
      new HumanMessage(`again ${m}`),
    ]);
    await model.invoke([new SystemMessage("Answer in French."), new HumanMessage(`hi ${m}`), new SystemMessage("Be brief.")]);
    const [first, second] = await received(m);
    expect(first.body.messages).toEqual([{ role: "user", content: [{ text: "first try" }, { text: `again ${m}` }] }]);
    expect(second.body.system).toEqual([{ text: "Answer in French." }, { text: "Be brief." }]);
  });
});

describe("awsChatBedrock in an agentflow", () => {
  const llmNode = async (m: string) =>
    node("llmAgentflow_0", {
      llmModel: "awsChatBedrock",
      llmModelConfig: { region: "eu-west-1", model: "amazon.nova-lite-v1:0", FLOWISE_CREDENTIAL_ID: await credential("awsApi", KEY) },
      llmMessages: [{ role: "system", content: `Greet the visitor ${m}` }],
      llmEnableMemory: true,
    });
  const ctx = () => ({ runtime: runtimeWith({ AWS_BEDROCK_BASE_URL: bedrockUrl() }) });

  it("a flow started by an empty form, its LLM node holding only a system prompt, gets an answer", async () => {
    const m = marker();
    const form = start({ startInputType: "formInput", formInputTypes: [{ type: "string", label: "Name", name: "name" }] });
    const out = await run(graph([form, await llmNode(m)], [edge("startAgentflow_0", "llmAgentflow_0")]), { form: {} }, { ctx: ctx() });
    expect(out.errorStatus).toBeUndefined();
    expect(out.text).toBe("echo: Please continue.");
    expect((await received(m)).at(-1)!.body.messages).toEqual([{ role: "user", content: [{ text: "Please continue." }] }]);
  });

  it("memory opening with the chat's greeting (an apiMessage first) gets an answer", async () => {
    const m = marker();
    const history = [
      { role: "apiMessage" as const, content: "Hi! How can I help?" },
      { role: "userMessage" as const, content: "What's new?" },
      { role: "apiMessage" as const, content: "Not much." },
    ];
    const g = graph([start(), await llmNode(m)], [edge("startAgentflow_0", "llmAgentflow_0")]);
    const out = await run(g, { question: `and now? ${m}` }, { ctx: ctx(), history });
    expect(out.errorStatus).toBeUndefined();
    expect(out.text).toBe(`echo: and now? ${m}`);
    expect((await received(m)).at(-1)!.body.messages).toMatchObject([
      { role: "user", content: [{ text: "Please continue." }] },
      { role: "assistant", content: [{ text: "Hi! How can I help?" }] },
      { role: "user" },
      { role: "assistant" },
      { role: "user", content: [{ text: `and now? ${m}` }] },
    ]);
  });
});
