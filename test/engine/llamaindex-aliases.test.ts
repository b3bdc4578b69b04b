// Flowise's LlamaIndex twins of chat models and embeddings edgeflow has (chatGroq_LlamaIndex,
// chatMistral_LlamaIndex, chatOllama_LlamaIndex, chatTogetherAI_LlamaIndex,
// azureOpenAIEmbeddingsLlamaIndex): each in a LlamaIndex engine flow, answering through the
// OpenAI-compatible stand-in, over its twin's endpoint and credential.
import { describe, expect, it } from "vitest";
import { credential, makeCtx, marker, requestsWith, runFlow, runtimeWith, standinUrl } from "./helpers";
import { defaultLlmRuntime, engineFlow, upsertTown } from "./llamaindex-flows";
import { flow, ref } from "./retrieval-flows";

const chatEngine = (name: string, inputs: Record<string, unknown>) =>
  flow([
    ["model_1", name, "Chat Models", inputs],
    ["engine_0", "simpleChatEngine", "Engine", { model: ref("model_1"), systemMessagePrompt: "You are terse." }],
  ] as never);

const chatRequestsWith = async (m: string) => (await requestsWith(m)).filter((r) => r.path.includes("/chat/completions"));

describe("LlamaIndex chat model aliases in simpleChatEngine", () => {
  it("chatGroq_LlamaIndex: groqChat's endpoint and groqApi key; maxTokens", async () => {
    const cred = await credential("groqApi", { groqApiKey: "gsk-alias-1" });
    const flowData = chatEngine("chatGroq_LlamaIndex", {
      credential: cred,
      modelName: "llama3-70b-8192",
      maxTokens: 64,
      basepath: `${standinUrl()}/v1`,
    });
    const m = marker();
    expect((await runFlow(flowData, makeCtx(`Hi ${m}`))).text).toBe(`echo: Hi ${m}`);
    const [req] = await chatRequestsWith(m);
    expect(req.headers.authorization).toBe("Bearer gsk-alias-1");
    expect(req.body).toMatchObject({ model: "llama3-70b-8192", max_tokens: 64 });
  });

  it("chatMistral_LlamaIndex: chatMistralAI's endpoint and mistralAIApi key; maxTokensToSample as max_tokens", async () => {
    const cred = await credential("mistralAIApi", { mistralAIAPIKey: "mistral-alias-1" });
    const inputs = {
      credential: cred,
      modelName: "mistral-tiny",
      maxTokensToSample: 32,
      topP: 0.5,
      overrideEndpoint: `${standinUrl()}/v1`,
    };
    const m = marker();
    expect((await runFlow(chatEngine("chatMistral_LlamaIndex", inputs), makeCtx(`Hi ${m}`))).text).toBe(`echo: Hi ${m}`);
    const [req] = await chatRequestsWith(m);
    expect(req.headers.authorization).toBe("Bearer mistral-alias-1");
    expect(req.body).toMatchObject({ model: "mistral-tiny", max_tokens: 32, top_p: 0.5 });
  });

  it("chatOllama_LlamaIndex: chatOllama's baseUrl (Ollama's /v1 API), topK", async () => {
    const m = marker();
    const flowData = chatEngine("chatOllama_LlamaIndex", { baseUrl: standinUrl(), modelName: "llama3", topK: 7 });
    expect((await runFlow(flowData, makeCtx(`Hi ${m}`))).text).toBe(`echo: Hi ${m}`);
    const [req] = await chatRequestsWith(m);
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.body).toMatchObject({ model: "llama3", top_k: 7 });
  });

  it("chatTogetherAI_LlamaIndex: chatTogetherAI's TOGETHER_BASE_URL and togetherAIApi key", async () => {
    const cred = await credential("togetherAIApi", { togetherAIApiKey: "together-alias-1" });
    const m = marker();
    const runtime = runtimeWith({ TOGETHER_BASE_URL: `${standinUrl()}/v1` });
    const flowData = chatEngine("chatTogetherAI_LlamaIndex", { credential: cred, modelName: "mixtral-8x7b-32768", temperature: 0.2 });
    expect((await runFlow(flowData, makeCtx(`Hi ${m}`, { runtime }))).text).toBe(`echo: Hi ${m}`);
    const [req] = await chatRequestsWith(m);
    expect(req.headers.authorization).toBe("Bearer together-alias-1");
    expect(req.body).toMatchObject({ model: "mixtral-8x7b-32768", temperature: 0.2 });
  });
});

describe("azureOpenAIEmbeddingsLlamaIndex", () => {
  it("embeds the store and the question through the Azure deployment; the engine answers from the passage", async () => {
    const cred = await credential("azureOpenAIApi", {
      azureOpenAIApiKey: "azure-emb-alias",
      azureOpenAIApiDeploymentName: "emb-dep",
      azureOpenAIApiVersion: "2024-06-01",
      azureOpenAIBasePath: `${standinUrl()}/v1`,
    });
    const base = JSON.parse(engineFlow("queryEngine", { vectorStoreRetriever: ref("vs_0") }));
    const emb = base.nodes.find((n: { id: string }) => n.id === "emb_0");
    emb.data.name = "azureOpenAIEmbeddingsLlamaIndex";
    emb.data.inputs = { credential: cred };
    const flowData = JSON.stringify(base);
    const chatflowid = crypto.randomUUID();
    await upsertTown(flowData, chatflowid);
    const m = marker();
    const result = await runFlow(flowData, makeCtx(`When does the bakery open? ${m}`, { chatflowid, runtime: defaultLlmRuntime() }));
    expect(result.text).toContain("echo:");
    const [embedded] = (await requestsWith(m)).filter((r) => r.path.includes("/embeddings"));
    expect(embedded.path).toBe("/v1/emb-dep/embeddings?api-version=2024-06-01");
    expect(embedded.headers["api-key"]).toBe("azure-emb-alias");
    const [answer] = await chatRequestsWith(m);
    expect(JSON.stringify(answer.body)).toContain("bakery");
  });
});
