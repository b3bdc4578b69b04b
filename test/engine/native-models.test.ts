// chatAnthropic and chatGoogleGenerativeAI over their native APIs, against the Anthropic and Gemini
// stand-ins (test/standin/anthropic.mjs, gemini.mjs): what the service received (auth header,
// system prompt, sampling, images, tools, tool results), answers streamed and not, tool calls, and
// failures as 502/504 naming the service without the key.
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { buildChatModel } from "../../src/providers/chat/registry";
import { invokeStructured } from "../../src/engine/agentflow/structured";
import type { ProviderDeps } from "../../src/providers/types";
import { getCredentialData } from "../../src/services/credentials";
import { callOf, toolAgentFlow } from "./agents-flows";
import { buildEmbeddings } from "../../src/providers/embeddings/registry";
import { closedUrl, credential, db, makeCtx, marker, recordingSink, requestsWith, runFlow, runtimeWith, standinUrl } from "./helpers";
import type { Env } from "../../src/env";

const anthropicUrl = () => inject("anthropicUrl");
const geminiUrl = () => inject("geminiUrl");

const deps = (over: Partial<ProviderDeps["env"]> = {}): ProviderDeps => ({
  env: { ENVIRONMENT: env.ENVIRONMENT, ANTHROPIC_BASE_URL: anthropicUrl(), GOOGLE_GENERATIVE_AI_BASE_URL: geminiUrl(), ...over }, // loopback stand-ins reachable
  getCredential: (id) => getCredentialData({ db: db(), env: env as unknown as Env }, id),
});

type Received = {
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown> & { messages?: unknown[]; contents?: unknown[] };
};
async function received(base: string, m: string): Promise<Received[]> {
  return (await fetch(`${base}/requests?contains=${encodeURIComponent(m)}`)).json();
}

const weather = tool(async ({ city }) => `sunny in ${city}`, {
  name: "get_weather",
  description: "the weather in a city",
  schema: z.object({ city: z.string().describe("a city") }),
});

const PIXEL = "data:image/png;base64,iVBORw0KGgo=";

const providers = [
  {
    name: "chatAnthropic",
    base: anthropicUrl,
    credential: () => credential("anthropicApi", { anthropicApiKey: "sk-ant-secret-1" }),
    config: { modelName: "claude-3-5-haiku-latest", temperature: "0.2", maxTokensToSample: "300", topK: "5" },
    key: (r: Received) => r.headers["x-api-key"],
    secret: "sk-ant-secret-1",
  },
  {
    name: "chatGoogleGenerativeAI",
    base: geminiUrl,
    credential: () => credential("googleGenerativeAI", { googleGenerativeAPIKey: "AIza-secret-2" }),
    config: { modelName: "gemini-1.5-flash-latest", temperature: "0.2", maxOutputTokens: "300", topK: "5" },
    key: (r: Received) => r.headers["x-goog-api-key"],
    secret: "AIza-secret-2",
  },
];

describe.each(providers)("$name", (p) => {
  const build = async (extra: Record<string, unknown> = {}, env?: Partial<ProviderDeps["env"]>) =>
    buildChatModel(p.name, { ...p.config, credential: await p.credential(), ...extra }, deps(env));

  it("answers; the service got the key header, model, sampling and the system prompt in its own field", async () => {
    const model = await build();
    const m = marker();
    const reply = await model.invoke([new SystemMessage("You are terse."), new HumanMessage(`hello ${m}`)]);
    expect(reply.content).toBe(`echo: hello ${m}`);
    const [req] = await received(p.base(), m);
    expect(p.key(req)).toBe(p.secret);
    if (p.name === "chatAnthropic") {
      expect(req.path).toBe("/v1/messages");
      expect(req.headers["anthropic-version"]).toBe("2023-06-01");
      expect(req.body).toMatchObject({
        model: "claude-3-5-haiku-latest",
        temperature: 0.2,
        max_tokens: 300,
        top_k: 5,
        system: "You are terse.",
        stream: false,
      });
      expect(req.body.messages).toEqual([{ role: "user", content: [{ type: "text", text: `hello ${m}` }] }]);
    } else {
      expect(req.path).toBe("/v1beta/models/gemini-1.5-flash-latest:generateContent");
      expect(req.path).not.toContain(p.secret);
      expect(req.body).toMatchObject({
        systemInstruction: { parts: [{ text: "You are terse." }] },
        generationConfig: { temperature: 0.2, maxOutputTokens: 300, topK: 5 },
      });
      expect(req.body.contents).toEqual([{ role: "user", parts: [{ text: `hello ${m}` }] }]);
    }
  });

  it("streams the answer in several chunks over server-sent events", async () => {
    const model = await build();
    const m = marker();
    const chunks: string[] = [];
    for await (const c of await model.stream([new HumanMessage(`stream this please ${m}`)])) chunks.push(String(c.content));
    expect(chunks.filter(Boolean).length).toBeGreaterThan(3);
    expect(chunks.join("")).toBe(`echo: stream this please ${m}`);
    const [req] = await received(p.base(), m);
    if (p.name === "chatAnthropic") expect(req.body.stream).toBe(true);
    else expect(req.path).toBe("/v1beta/models/gemini-1.5-flash-latest:streamGenerateContent?alt=sse");
  });

  it.each([false, true])(
    "tool calls (bindTools, streamed: %s): the call's name and arguments, then the result goes back",
    async (streamed) => {
      const model = (await build()).bindTools!([weather]);
      const m = marker();
      const question = new HumanMessage(`weather? ${callOf("get_weather", { city: "Oslo" })} ${m}`);
      let first: AIMessage;
      if (streamed) {
        let acc: AIMessage | undefined;
        for await (const c of await model.stream([question]))
          acc = acc ? (acc as never as { concat(o: unknown): AIMessage }).concat(c) : (c as AIMessage);
        first = acc!;
      } else first = (await model.invoke([question])) as AIMessage;
      expect(first.tool_calls).toEqual([expect.objectContaining({ name: "get_weather", args: { city: "Oslo" } })]);
      const id = first.tool_calls![0].id!;
      const final = await model.invoke([
        question,
        new AIMessage({ content: "", tool_calls: first.tool_calls }),
        new ToolMessage({ content: "sunny in Oslo", tool_call_id: id }),
      ]);
      expect(final.content).toBe("tools said: sunny in Oslo");

      const reqs = await received(p.base(), m);
      const last = reqs.at(-1)!;
      if (p.name === "chatAnthropic") {
        expect(last.body.tools).toEqual([
          {
            name: "get_weather",
            description: "the weather in a city",
            input_schema: expect.objectContaining({ type: "object", properties: { city: expect.objectContaining({ type: "string" }) } }),
          },
        ]);
        expect(last.body.messages!.slice(1)).toEqual([
          { role: "assistant", content: [{ type: "tool_use", id, name: "get_weather", input: { city: "Oslo" } }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "sunny in Oslo" }] },
        ]);
      } else {
        const decl = (last.body.tools as Array<{ functionDeclarations: Array<Record<string, unknown>> }>)[0].functionDeclarations[0];
        expect(decl).toMatchObject({ name: "get_weather", parameters: { type: "object" } });
        expect(JSON.stringify(decl)).not.toContain("additionalProperties");
        expect(last.body.contents!.slice(1)).toEqual([
          { role: "model", parts: [{ functionCall: { name: "get_weather", args: { city: "Oslo" } } }] },
          { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { content: "sunny in Oslo" } } }] },
        ]);
      }
    },
  );

  it("an uploaded image goes as the service's inline image part", async () => {
    const model = await build();
    const m = marker();
    await model.invoke([
      new HumanMessage({
        content: [
          { type: "text", text: `what is this ${m}` },
          { type: "image_url", image_url: { url: PIXEL } },
        ],
      }),
    ]);
    const [req] = await received(p.base(), m);
    if (p.name === "chatAnthropic") {
      expect((req.body.messages as Array<{ content: unknown[] }>)[0].content[1]).toEqual({
        type: "image",
        source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" },
      });
    } else {
      expect((req.body.contents as Array<{ parts: unknown[] }>)[0].parts[1]).toEqual({
        inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" },
      });
    }
  });

  it("structured output forces its function in the service's own form (LangChain's OpenAI-shaped choice translated)", async () => {
    const model = await build();
    const m = marker();
    const schema = z.object({ city: z.string(), days: z.number() });
    const { value } = await invokeStructured(
      model,
      [new HumanMessage(`[so {"city":"Oslo","days":3}] plan ${m}`)],
      schema,
      "Test",
      new AbortController().signal,
    );
    expect(value).toEqual({ city: "Oslo", days: 3 });
    const [req] = await received(p.base(), m);
    if (p.name === "chatAnthropic") {
      expect(req.body.tool_choice).toEqual({ type: "tool", name: (req.body.tools as Array<{ name: string }>)[0].name });
    } else {
      const name = (req.body.tools as Array<{ functionDeclarations: Array<{ name: string }> }>)[0].functionDeclarations[0].name;
      expect(req.body.toolConfig).toEqual({ functionCallingConfig: { mode: "ANY", allowedFunctionNames: [name] } });
    }
    // The modes too: "required" is Anthropic's "any" and Gemini's ANY; "none" Gemini's NONE.
    const weatherModel = model.bindTools!([weather], { tool_choice: "required" });
    const m2 = marker();
    await weatherModel.invoke([new HumanMessage(`[call get_weather {"city":"Rome"}] ${m2}`)]);
    const [forced] = await received(p.base(), m2);
    if (p.name === "chatAnthropic") expect(forced.body.tool_choice).toEqual({ type: "any" });
    else expect(forced.body.toolConfig).toEqual({ functionCallingConfig: { mode: "ANY" } });
  });

  it("failures: 502 with the service's message and name, 504 past the timeout, never the key", async () => {
    const model = await build({ timeout: 300 });
    const fail = await model.invoke([new HumanMessage(`[fail] ${marker()}`)]).catch((e) => e);
    expect(fail).toMatchObject({
      status: 502,
      message: expect.stringMatching(/(Anthropic|Google Gemini) answered 500: stand-in refuses this request/),
    });
    const refused = await model.invoke([new HumanMessage(`[bad-request] ${marker()}`)]).catch((e) => e);
    expect(refused).toMatchObject({ status: 502, message: expect.stringContaining("answered 400") });
    const started = Date.now();
    const slow = await model.invoke([new HumanMessage(`[hang] ${marker()}`)]).catch((e) => e);
    expect(slow).toMatchObject({ status: 504, message: expect.stringMatching(/did not answer within 300 ms/) });
    expect(Date.now() - started).toBeLessThan(3000);
    const down = await buildChatModel(
      p.name,
      { ...p.config, credential: await p.credential() },
      deps({ ANTHROPIC_BASE_URL: closedUrl(), GOOGLE_GENERATIVE_AI_BASE_URL: closedUrl() }),
    );
    const gone = await down.invoke([new HumanMessage("hi")]).catch((e) => e);
    expect(gone).toMatchObject({ status: 502, message: expect.stringMatching(/(Anthropic|Google Gemini) request failed/) });
    for (const e of [fail, refused, slow, gone]) expect(String(e.message)).not.toContain(p.secret);
  });

  it("a single 500 is retried once and the call succeeds, JSON and streaming (before the first token)", async () => {
    const model = await build();
    const m = marker();
    const answer = await model.invoke([new HumanMessage(`[fail-once] ${m}`)]);
    expect(answer.content).toBe(`echo: [fail-once] ${m}`);
    expect(await received(p.base(), m)).toHaveLength(2);
    const m2 = marker();
    let streamed = "";
    for await (const chunk of await model.stream([new HumanMessage(`[fail-once] ${m2}`)])) streamed += chunk.content;
    expect(streamed).toBe(`echo: [fail-once] ${m2}`);
    expect(await received(p.base(), m2)).toHaveLength(2);
  });

  it("runs Flowise's Tool Agent chatflow in place of chatOpenAI: calculator call, result, answer", async () => {
    const flow = JSON.parse(toolAgentFlow());
    const node = flow.nodes.find((n: { id: string }) => n.id === "chatOpenAI_0");
    node.data.name = p.name;
    node.data.inputs = { ...p.config };
    node.data.credential = await p.credential();
    const m = marker();
    const runtime = runtimeWith({ ANTHROPIC_BASE_URL: anthropicUrl(), GOOGLE_GENERATIVE_AI_BASE_URL: geminiUrl() });
    const result = await runFlow(JSON.stringify(flow), makeCtx(`6 times 7? ${callOf("calculator", { input: "6*7" })} ${m}`, { runtime }));
    expect(result.text).toBe("tools said: 42");
    expect(result.usedTools).toEqual([expect.objectContaining({ tool: "calculator", toolInput: { input: "6*7" }, toolOutput: "42" })]);

    // Streamed: the final answer arrives token by token through the run's sink.
    const rec = recordingSink();
    const streamed = await runFlow(
      JSON.stringify(flow),
      makeCtx(`6 times 8? ${callOf("calculator", { input: "6*8" })} ${marker()}`, { runtime }),
      rec.sink,
    );
    expect(streamed.text).toBe("tools said: 48");
    expect(rec.tokens.length).toBeGreaterThan(1);
    expect(rec.text()).toBe("tools said: 48");
  });
});

describe("registry names", () => {
  it("chatAnthropic_LlamaIndex is chatAnthropic with the same inputs", async () => {
    const cred = await credential("anthropicApi", { anthropicApiKey: "sk-ant-li" });
    const model = await buildChatModel("chatAnthropic_LlamaIndex", { modelName: "claude-3-haiku", credential: cred }, deps());
    const m = marker();
    expect((await model.invoke([new HumanMessage(m)])).content).toBe(`echo: ${m}`);
    const [req] = await received(anthropicUrl(), m);
    expect(req.body.model).toBe("claude-3-haiku");
  });

  it("chatOpenAI_LlamaIndex and azureChatOpenAI_LlamaIndex are their LangChain twins (inputs, credentials)", async () => {
    const m = marker();
    const openai = await buildChatModel(
      "chatOpenAI_LlamaIndex",
      { modelName: "gpt-4o", temperature: 0.1, credential: await credential("openAIApi", { openAIApiKey: "sk-li" }) },
      deps({ OPENAI_BASE_URL: `${standinUrl()}/v1` }),
    );
    expect((await openai.invoke([new HumanMessage(m)])).content).toBe(`echo: ${m}`);
    const azureCred = await credential("azureOpenAIApi", {
      azureOpenAIApiKey: "az-li",
      azureOpenAIApiDeploymentName: "dep-li",
      azureOpenAIBasePath: `${standinUrl()}/v1`,
    });
    const azure = await buildChatModel("azureChatOpenAI_LlamaIndex", { modelName: "gpt-4", credential: azureCred }, deps());
    await azure.invoke([new HumanMessage(`${m} azure`)]);
    const [a, b] = await requestsWith(m);
    expect(a).toMatchObject({
      path: "/v1/chat/completions",
      headers: { authorization: "Bearer sk-li" },
      body: { model: "gpt-4o", temperature: 0.1 },
    });
    expect(b).toMatchObject({
      path: expect.stringMatching(/^\/v1\/dep-li\/chat\/completions\?api-version=/),
      headers: { "api-key": "az-li" },
    });
  });

  it("localAIEmbeddings (basePath, localAIApi key) and openAIEmbedding_LlamaIndex embed through the OpenAI-compatible API", async () => {
    const m = marker();
    const local = await buildEmbeddings(
      "localAIEmbeddings",
      {
        basePath: `${standinUrl()}/v1`,
        modelName: "bert-embeddings",
        credential: await credential("localAIApi", { localAIApiKey: "la-key" }),
      },
      deps(),
    );
    const [v] = await local.embedDocuments([`local ${m}`]);
    expect(v.length).toBe(4096);
    const li = await buildEmbeddings(
      "openAIEmbedding_LlamaIndex",
      { modelName: "text-embedding-3-small", credential: await credential("openAIApi", { openAIApiKey: "sk-emb" }) },
      deps({ OPENAI_BASE_URL: `${standinUrl()}/v1` }),
    );
    expect(await li.embedQuery(`li ${m}`)).toHaveLength(4096);
    const [a, b] = await requestsWith(m);
    expect(a).toMatchObject({ path: "/v1/embeddings", headers: { authorization: "Bearer la-key" }, body: { model: "bert-embeddings" } });
    expect(b).toMatchObject({
      path: "/v1/embeddings",
      headers: { authorization: "Bearer sk-emb" },
      body: { model: "text-embedding-3-small" },
    });
    await expect(buildEmbeddings("localAIEmbeddings", {}, deps())).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("basePath"),
    });
  });

  it.each([
    // Exactly as Flowise's agentflow templates hold them (llmModelConfig), the credential by FLOWISE_CREDENTIAL_ID.
    [
      "chatAnthropic",
      {
        modelName: "claude-sonnet-4-0",
        temperature: 0.9,
        streaming: true,
        maxTokensToSample: "",
        topP: "",
        topK: "",
        extendedThinking: "",
        budgetTokens: 1024,
        allowImageUploads: "",
        llmModel: "chatAnthropic",
      },
      "anthropicApi",
      { anthropicApiKey: "k1" },
    ],
    [
      "chatGoogleGenerativeAI",
      {
        contextCache: "",
        modelName: "gemini-2.0-flash",
        customModelName: "",
        temperature: 0.9,
        streaming: true,
        maxOutputTokens: "",
        topP: "",
        topK: "",
        harmCategory: "",
        harmBlockThreshold: "",
        baseUrl: "",
        allowImageUploads: "",
        llmModel: "chatGoogleGenerativeAI",
      },
      "googleGenerativeAI",
      { googleGenerativeAPIKey: "k2" },
    ],
  ])("agentflow's llmModelConfig for %s builds a working model", async (name, config, credName, data) => {
    const model = await buildChatModel(name, { ...config, FLOWISE_CREDENTIAL_ID: await credential(credName, data) }, deps());
    const m = marker();
    expect((await model.invoke([new HumanMessage(m)])).content).toBe(`echo: ${m}`);
    const [req] = await received(name === "chatAnthropic" ? anthropicUrl() : geminiUrl(), m);
    if (name === "chatAnthropic") expect(req.body).toMatchObject({ model: "claude-sonnet-4-0", temperature: 0.9, max_tokens: 2048 });
    else
      expect(req).toMatchObject({
        path: "/v1beta/models/gemini-2.0-flash:generateContent",
        body: { generationConfig: { temperature: 0.9 } },
      });
    expect(req.body).not.toHaveProperty("safetySettings");
  });

  it("Gemini harm categories pair with thresholds; unequal lists are a 400", async () => {
    const cred = await credential("googleGenerativeAI", { googleGenerativeAPIKey: "AIza-x" });
    const model = await buildChatModel(
      "chatGoogleGenerativeAI",
      {
        customModelName: "gemini-2.0-flash",
        credential: cred,
        harmCategory: '["HARM_CATEGORY_HARASSMENT"]',
        harmBlockThreshold: '["BLOCK_ONLY_HIGH"]',
      },
      deps(),
    );
    const m = marker();
    await model.invoke([new HumanMessage(m)]);
    const [req] = await received(geminiUrl(), m);
    expect(req.path).toContain("/models/gemini-2.0-flash:");
    expect(req.body.safetySettings).toEqual([{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_ONLY_HIGH" }]);
    await expect(
      buildChatModel("chatGoogleGenerativeAI", { harmCategory: '["A","B"]', harmBlockThreshold: '["C"]' }, deps()),
    ).rejects.toMatchObject({ status: 400 });
  });
});
