// Chat providers through runFlow: real streaming, failures (502), deadlines (504), the one retry,
// aborts, endpoints of each chat model node, and Workers AI through a stand-in AI binding.
import { describe, expect, it } from "vitest";
import { azureEndpoint, mistralEndpoint, ollamaEndpoint, openAIEndpoint } from "../../src/providers/chat/endpoints";
import type { FlowNode } from "../../src/engine";
import llmChain from "./fixtures/llm-chain.json";
import conversationChain from "./fixtures/conversation-chain.json";
import {
  type Fixture,
  closedUrl,
  credential,
  flowDataOf,
  makeCtx,
  marker,
  pointAtStandin,
  recordingSink,
  requestsWith,
  runFlow,
  runtimeWith,
  standinUrl,
} from "./helpers";

/** conversation-chain.json with its model node replaced by `name` (+ inputs), pointed at `base`. */
function conversationWith(name: string, inputs: Record<string, unknown> = {}, base?: string, credentialId?: string): string {
  return flowDataOf(conversationChain as Fixture, (n) => {
    const model = n.get("chatOpenAI_0")!;
    model.data.name = name;
    model.data.inputs = { ...model.data.inputs, ...inputs };
    if (base !== undefined) pointAtStandin(model, credentialId, base);
    else if (credentialId) model.data.credential = credentialId;
  });
}

const openAIFlow = (inputs: Record<string, unknown> = {}, base = `${standinUrl()}/v1`) => conversationWith("chatOpenAI", inputs, base);

describe("streaming", () => {
  it("tokens reach the sink while the model is still answering ([slow])", async () => {
    const m = marker();
    const rec = recordingSink();
    const started = Date.now();
    const result = await runFlow(openAIFlow(), makeCtx(`one two three four [slow] ${m}`), rec.sink);
    const finished = Date.now();
    expect(rec.text()).toBe(result.text);
    expect(result.text).toBe(`echo: one two three four [slow] ${m}`);
    expect(rec.tokens.length).toBeGreaterThanOrEqual(6);
    // The first token came well before the answer was complete (each later token waits 300 ms).
    expect(finished - rec.tokens[0].at).toBeGreaterThanOrEqual(1000);
    expect(rec.tokens[0].at - started).toBeLessThan(finished - started - 1000);
  });

  it("a chat model with streaming: false answers in one piece and no tokens are pushed", async () => {
    const m = marker();
    const rec = recordingSink();
    const flow = openAIFlow({ streaming: false });
    const result = await runFlow(flow, makeCtx(`hello ${m}`), rec.sink);
    expect(result.text).toBe(`echo: hello ${m}`);
    expect(rec.tokens).toHaveLength(0);
    expect((await requestsWith(m))[0].body.stream).toBe(false);
  });
});

describe("failures", () => {
  it("nothing listening at the endpoint → 502 naming the failure", async () => {
    const err = await runFlow(openAIFlow({}, `${closedUrl()}/v1`), makeCtx("hi")).catch((e) => e);
    expect(err).toMatchObject({ status: 502 });
    expect(err.message).toMatch(/OpenAI-compatible endpoint request failed/);
  });

  it("nothing listening, streaming → 502 too", async () => {
    const rec = recordingSink();
    const err = await runFlow(openAIFlow({}, `${closedUrl()}/v1`), makeCtx("hi"), rec.sink).catch((e) => e);
    expect(err).toMatchObject({ status: 502 });
    expect(rec.tokens).toHaveLength(0);
  });

  it("a 500 from the provider → 502 with the provider's message, after one retry", async () => {
    const m = marker();
    const err = await runFlow(openAIFlow(), makeCtx(`[fail] ${m}`)).catch((e) => e);
    expect(err).toMatchObject({ status: 502, message: "OpenAI-compatible endpoint answered 500: stand-in failure" });
    expect(await requestsWith(m)).toHaveLength(2);
  });

  it("a single 500 is retried once and the run succeeds (JSON and streaming)", async () => {
    const m = marker();
    const result = await runFlow(openAIFlow(), makeCtx(`[fail-once] ${m}`));
    expect(result.text).toBe(`echo: [fail-once] ${m}`);
    expect(await requestsWith(m)).toHaveLength(2);
    const m2 = marker();
    const rec = recordingSink();
    const streamed = await runFlow(openAIFlow(), makeCtx(`[fail-once] ${m2}`), rec.sink);
    expect(rec.text()).toBe(streamed.text);
    expect(await requestsWith(m2)).toHaveLength(2);
  });

  it("a 4xx is not retried: 502 with the provider's message", async () => {
    const m = marker();
    const err = await runFlow(openAIFlow(), makeCtx(`[bad-request] ${m}`)).catch((e) => e);
    expect(err).toMatchObject({ status: 502, message: "OpenAI-compatible endpoint answered 400: stand-in refuses this request" });
    expect(await requestsWith(m)).toHaveLength(1);
  });

  it("no answer within the node's timeout (ms) → 504", async () => {
    const m = marker();
    const err = await runFlow(openAIFlow({ timeout: 200 }), makeCtx(`[slow] ${m}`)).catch((e) => e);
    expect(err).toMatchObject({ status: 504, message: "OpenAI-compatible endpoint did not answer within 200 ms" });
    expect(await requestsWith(m)).toHaveLength(1); // a timeout is not retried
  });

  it("a stream that stalls longer than the timeout → 504 after the tokens so far", async () => {
    const rec = recordingSink();
    // The stand-in waits 300 ms between tokens: 250 leaves the first token room on a loaded machine (150 did not).
    const err = await runFlow(openAIFlow({ timeout: 250 }), makeCtx(`a b c d [slow] ${marker()}`), rec.sink).catch((e) => e);
    expect(err).toMatchObject({ status: 504 });
    expect(rec.tokens.length).toBeGreaterThanOrEqual(1);
  });

  it("an abort stops the call at once and is reported as an AbortError", async () => {
    const controller = new AbortController();
    const rec = recordingSink();
    const m = marker();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const err = await runFlow(openAIFlow(), makeCtx(`[hang] ${m}`, { signal: controller.signal }), rec.sink).catch((e) => e);
    expect(err.name).toBe("AbortError");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("an already aborted signal never calls the model", async () => {
    const controller = new AbortController();
    controller.abort();
    const m = marker();
    const err = await runFlow(openAIFlow(), makeCtx(`hi ${m}`, { signal: controller.signal })).catch((e) => e);
    expect(err.name).toBe("AbortError");
    expect(await requestsWith(m)).toHaveLength(0);
  });
});

describe("chat model nodes", () => {
  it("chatOpenAI: temperature, maxTokens, topP and model go into the request; overrides by label apply", async () => {
    const m = marker();
    const flow = openAIFlow({ modelName: "gpt-test", temperature: "0.2", maxTokens: "55", topP: 0.5 });
    await runFlow(flow, makeCtx(`hi ${m}`, { nodeOverrides: { ChatOpenAI: { temperature: 0.7 } } }));
    const [req] = await requestsWith(m);
    expect(req.body).toMatchObject({ model: "gpt-test", temperature: 0.7, max_tokens: 55, top_p: 0.5 });
    expect(req.headers.authorization).toBeNull(); // no credential, no OPENAI_API_KEY
  });

  it("chatOpenAI without basepath uses the credential's basePath, then OPENAI_BASE_URL", async () => {
    const cred = await credential("openAIApi", { openAIApiKey: "sk-cred", basePath: `${standinUrl()}/v1` });
    const m = marker();
    await runFlow(conversationWith("chatOpenAI", {}, undefined, cred), makeCtx(`hi ${m}`));
    expect((await requestsWith(m))[0].headers.authorization).toBe("Bearer sk-cred");

    const m2 = marker();
    const ctx = makeCtx(`hi ${m2}`);
    ctx.runtime = runtimeWith({ OPENAI_BASE_URL: `${standinUrl()}/v1`, OPENAI_API_KEY: "sk-env" });
    await runFlow(conversationWith("chatOpenAI"), ctx);
    expect((await requestsWith(m2))[0].headers.authorization).toBe("Bearer sk-env");
  });

  it("chatMistralAI: overrideEndpoint (a bare host gets /v1) and mistralAIAPIKey", async () => {
    const cred = await credential("mistralAIApi", { mistralAIAPIKey: "mistral-key" });
    const m = marker();
    const result = await runFlow(
      conversationWith("chatMistralAI", { modelName: "mistral-tiny", randomSeed: "7" }, standinUrl(), cred),
      makeCtx(`bonjour ${m}`),
    );
    expect(result.text).toBe(`echo: bonjour ${m}`);
    const [req] = await requestsWith(m);
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe("Bearer mistral-key");
    expect(req.body).toMatchObject({ model: "mistral-tiny", random_seed: 7 });
  });

  it("chatOllama: baseUrl through the /v1 API", async () => {
    const m = marker();
    const rec = recordingSink();
    const result = await runFlow(conversationWith("chatOllama", { modelName: "llama3.2" }, standinUrl()), makeCtx(`hallo ${m}`), rec.sink);
    expect(rec.text()).toBe(result.text);
    expect((await requestsWith(m))[0]).toMatchObject({ path: "/v1/chat/completions", body: { model: "llama3.2" } });
  });

  it("chatOpenAICustom: baseOptions are default headers; chatLocalAI: basePath and localAIApiKey", async () => {
    const m = marker();
    await runFlow(conversationWith("chatOpenAICustom", { baseOptions: '{"X-Team":"edge"}' }, `${standinUrl()}/v1`), makeCtx(`hi ${m}`));
    expect((await requestsWith(m))[0].headers["x-team"]).toBe("edge");

    const cred = await credential("localAIApi", { localAIApiKey: "local-key" });
    const m2 = marker();
    const flow = flowDataOf(conversationChain as Fixture, (n) => {
      const model = n.get("chatOpenAI_0")!;
      model.data.name = "chatLocalAI";
      model.data.inputs = { basePath: `${standinUrl()}/v1`, modelName: "ggml" };
      model.data.credential = cred;
    });
    expect((await runFlow(flow, makeCtx(`hi ${m2}`))).text).toBe(`echo: hi ${m2}`);
    expect((await requestsWith(m2))[0]).toMatchObject({ headers: { authorization: "Bearer local-key" }, body: { model: "ggml" } });
  });

  it("endpoint builders", () => {
    const env = {};
    expect(openAIEndpoint({}, {}, env).url).toBe("https://api.openai.com/v1/chat/completions");
    expect(openAIEndpoint({ basepath: "http://h:1/v1/" }, { openAIApiKey: "k" }, env)).toMatchObject({
      url: "http://h:1/v1/chat/completions",
      headers: { Authorization: "Bearer k" },
    });
    expect(
      azureEndpoint(
        { modelName: "gpt" },
        {
          azureOpenAIApiKey: "k",
          azureOpenAIApiInstanceName: "inst",
          azureOpenAIApiDeploymentName: "dep",
          azureOpenAIApiVersion: "2024-02-01",
        },
      ),
    ).toEqual({
      url: "https://inst.openai.azure.com/openai/deployments/dep/chat/completions?api-version=2024-02-01",
      headers: { "api-key": "k" },
      provider: "Azure OpenAI",
      field: "azureOpenAIApi credential azureOpenAIApiInstanceName",
    });
    expect(() => azureEndpoint({ modelName: "gpt" }, {})).toThrow(/InstanceName/);
    expect(mistralEndpoint({}, {}).url).toBe("https://api.mistral.ai/v1/chat/completions");
    expect(ollamaEndpoint({}).url).toBe("http://127.0.0.1:11434/v1/chat/completions");
    expect(() => openAIEndpoint({ basepath: "not a url" }, {}, env)).toThrow(/not a valid URL/);
    expect(() => openAIEndpoint({ basepath: "ftp://x/v1" }, {}, env)).toThrow(/http/);
  });
});

describe("Workers AI", () => {
  /** A stand-in AI binding: echoes the last user message; streams SSE when asked. */
  function fakeAi(calls: Array<{ model: string; inputs: Record<string, unknown> }>) {
    return {
      async run(model: string, inputs: Record<string, unknown>) {
        calls.push({ model, inputs });
        const messages = inputs.messages as Array<{ role: string; content: string }>;
        const last = messages.filter((x) => x.role === "user").at(-1)?.content ?? "";
        if (last.includes("[fail]")) throw new Error("AiError: model unavailable");
        const answer = `ai: ${last}`;
        if (!inputs.stream) return { response: answer };
        const enc = new TextEncoder();
        const words = answer.split(/(?<= )/);
        return new ReadableStream<Uint8Array>({
          async start(controller) {
            for (const w of words) {
              controller.enqueue(enc.encode(`data: ${JSON.stringify({ response: w })}\n\n`));
              await new Promise((r) => setTimeout(r, 20));
            }
            controller.enqueue(enc.encode("data: [DONE]\n\n"));
            controller.close();
          },
        });
      },
    };
  }

  const ctxWithAi = (question: string, ai: unknown) => {
    const ctx = makeCtx(question);
    ctx.runtime = runtimeWith({ AI: ai as Ai });
    return ctx;
  };

  it("an @cf/ model on chatOpenAI goes to the AI binding (JSON and streaming)", async () => {
    const calls: Array<{ model: string; inputs: Record<string, unknown> }> = [];
    const flow = openAIFlow({ modelName: "@cf/meta/llama-3.1-8b-instruct" });
    const result = await runFlow(flow, ctxWithAi("hello there", fakeAi(calls)));
    expect(result.text).toBe("ai: hello there");
    expect(calls[0].model).toBe("@cf/meta/llama-3.1-8b-instruct");
    expect(calls[0].inputs).toMatchObject({ stream: false, temperature: 0.9 });
    expect((calls[0].inputs.messages as unknown[]).length).toBe(2);

    const rec = recordingSink();
    const streamed = await runFlow(flow, ctxWithAi("stream me please", fakeAi(calls)), rec.sink);
    expect(streamed.text).toBe("ai: stream me please");
    expect(rec.tokens.map((t) => t.text)).toEqual(["ai: ", "stream ", "me ", "please"]);
    expect(calls[1].inputs.stream).toBe(true);
  });

  it("chatCloudflareWorkersAI uses the binding", async () => {
    const calls: Array<{ model: string; inputs: Record<string, unknown> }> = [];
    const result = await runFlow(
      conversationWith("chatCloudflareWorkersAI", { modelName: "@cf/mistral/mistral-7b-instruct-v0.1" }),
      ctxWithAi("hey", fakeAi(calls)),
    );
    expect(result.text).toBe("ai: hey");
    expect(calls[0].model).toBe("@cf/mistral/mistral-7b-instruct-v0.1");
  });

  it("a Workers AI stream that stalls past the node's timeout → 504", async () => {
    const enc = new TextEncoder();
    const stalled = {
      async run() {
        return new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(enc.encode(`data: ${JSON.stringify({ response: "first " })}\n\n`));
          },
        });
      },
    };
    const rec = recordingSink();
    const err = await runFlow(
      openAIFlow({ modelName: "@cf/meta/llama-3.1-8b-instruct", timeout: 100 }),
      ctxWithAi("hi", stalled),
      rec.sink,
    ).catch((e) => e);
    expect(err).toMatchObject({ status: 504, message: "Workers AI did not answer within 100 ms" });
    expect(rec.text()).toBe("first ");
  });

  it("a binding failure is a 502 with its message", async () => {
    const err = await runFlow(openAIFlow({ modelName: "@cf/meta/llama-3.1-8b-instruct" }), ctxWithAi("[fail]", fakeAi([]))).catch((e) => e);
    expect(err).toMatchObject({ status: 502 });
    expect(err.message).toContain("model unavailable");
  });

  it("no AI binding → a clear 400", async () => {
    const err = await runFlow(openAIFlow({ modelName: "@cf/meta/llama-3.1-8b-instruct" }), ctxWithAi("hi", undefined)).catch((e) => e);
    expect(err).toMatchObject({ status: 400 });
    expect(err.message).toContain("Workers AI binding AI is not configured");
  });
});

// Keep the fixture import used (llm-chain is the Azure case, covered in fixtures.test.ts).
void (llmChain as unknown as { nodes: FlowNode[] });
