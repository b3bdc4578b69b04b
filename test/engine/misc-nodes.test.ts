// Small Flowise nodes over their services' wire protocols (test/standin/misc-models.mjs):
// AzureRerankRetriever (Azure AI Foundry's Cohere rerank) through a retrieval chain, chatNemoGuardrails
// and promptLangFuse in saved chatflows through POST /prediction; what the stand-in received, and
// failures (the service's error → 502 without the secret, bad config → 400).
import { beforeAll, describe, expect, inject, it } from "vitest";
import { supportedNodeNames } from "../../src/engine/chatflow/registry";
import { planFlowUpsert, runUpsert } from "../../src/engine/chatflow/upsert";
import { langfuseTemplate } from "../../src/engine/chatflow/nodes/prompt-langfuse";
import { call, expectError, json } from "../helpers";
import { setVars } from "../security/helpers";
import { framesOf } from "../security/helpers";
import { credential, makeCtx, marker, requestsWith, runFlow, runtimeWith, standinUrl } from "./helpers";
import { BAKERY, LIBRARY, TOWN_TEXT, flow, ref, standinModel } from "./retrieval-flows";

type Spec = Parameters<typeof flow>[0][number];
type Recorded = { method: string; path: string; headers: Record<string, string>; body: Record<string, unknown> };

const misc = () => inject("miscModelsUrl");
/** The text prompt the stand-in's Langfuse keeps (test/standin/misc-models.mjs). */
const LANGFUSE_TEXT = 'You are {{persona}}. Reply as JSON like {"answer": "..."} and keep {note: literal}. Question: {{question}}';
/** What the misc stand-in received whose body or path holds `m`. */
async function miscRequests(m: string): Promise<Recorded[]> {
  const all = (await (await fetch(`${misc()}/requests`)).json()) as Recorded[];
  return all.filter((r) => r.path.includes(encodeURIComponent(m)) || JSON.stringify(r.body ?? "").includes(m));
}

const storedCredential = async (credentialName: string, plainDataObj: Record<string, unknown>) =>
  (await json("POST", "/credentials", { body: { name: credentialName, credentialName, plainDataObj } })).id as string;
const saveFlow = async (specs: Spec[]) =>
  (await json("POST", "/chatflows", { body: { name: "misc", flowData: flow(specs) } })).id as string;

let openai = "";
let azure = "";

beforeAll(async () => {
  openai = await credential("openAIApi", { openAIApiKey: "sk-misc" });
  azure = await credential("azureFoundryApi", {
    azureFoundryApiKey: "azure-rerank-key",
    azureFoundryEndpoint: `${misc()}/providers/cohere/v2/rerank`,
  });
});

it("the registry has the nodes", () => {
  for (const n of ["AzureRerankRetriever", "chatNemoGuardrails", "promptLangFuse", "chatAlibabaTongyi"])
    expect(supportedNodeNames(), n).toContain(n);
});

describe("AzureRerankRetriever", () => {
  /** The town text in a memory store → the reranker (`inputs`, credential `cred`) → a retrieval chain returning sources. */
  async function ask(question: string, inputs: Record<string, unknown> = {}, cred = azure) {
    const flowData = flow([
      ["splitter_0", "recursiveCharacterTextSplitter", "Text Splitters", { chunkSize: 1000, chunkOverlap: "" }],
      ["loader_0", "plainText", "Document Loaders", { text: TOWN_TEXT, textSplitter: ref("splitter_0") }, { output: "document" }],
      ["emb_0", "openAIEmbeddings", "Embeddings", { basepath: `${standinUrl()}/v1`, credential: openai }],
      [
        "vs_0",
        "memoryVectorStore",
        "Vector Stores",
        { document: [ref("loader_0")], embeddings: ref("emb_0"), topK: "3" },
        { output: "retriever" },
      ],
      standinModel("model_0", openai),
      ["ret_0", "AzureRerankRetriever", "Retrievers", { baseRetriever: ref("vs_0"), credential: cred, ...inputs }, { output: "retriever" }],
      ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref("ret_0"), returnSourceDocuments: true }],
    ]);
    const chatflowid = crypto.randomUUID();
    const { graph, plan } = planFlowUpsert(flowData);
    await runUpsert(graph, plan, makeCtx("", { chatflowid }));
    return runFlow(flowData, makeCtx(question, { chatflowid, runtime: runtimeWith({}) }));
  }
  const failureOf = (p: Promise<unknown>) =>
    p.then(
      () => ({ status: 0, message: "no failure" }),
      (e: { status: number; message: string }) => e,
    );

  it("orders the base retriever's documents through the credential's endpoint, api-key header, Cohere's body", async () => {
    const m = marker();
    const question = `library novels reader card ${m}`;
    const result = await ask(question, { topK: 2 });
    expect(result.sourceDocuments?.map((d) => d.pageContent)[0]).toBe(LIBRARY);
    expect(result.sourceDocuments).toHaveLength(2);
    expect(result.sourceDocuments?.[0].metadata).toMatchObject({ relevance_score: expect.any(Number) });
    const [sent] = await miscRequests(m);
    expect(sent.path).toBe("/providers/cohere/v2/rerank");
    expect(sent.headers["api-key"]).toBe("azure-rerank-key");
    expect(sent.headers.authorization).toBeUndefined();
    // Cohere's v2 body: v2 refuses v1's max_chunks_per_doc and return_documents (422 "unknown field").
    expect(Object.keys(sent.body).sort()).toEqual(["documents", "model", "query", "top_n"]);
    expect(sent.body).toMatchObject({ model: "Cohere-rerank-v4.0-fast", query: question, top_n: 2 });
    expect(sent.body.documents).toHaveLength(3);
    const m2 = marker();
    const other = await ask(`bakery croissants ${m2}`, { model: "rerank-v3.5", maxChunksPerDoc: "4" });
    expect(other.sourceDocuments?.map((d) => d.pageContent)[0]).toBe(BAKERY);
    const [second] = await miscRequests(m2);
    expect(second.body).not.toHaveProperty("max_chunks_per_doc");
  });

  it("an endpoint on Cohere's v1 route gets the v1 body (max_chunks_per_doc, return_documents)", async () => {
    const v1 = await credential("azureFoundryApi", {
      azureFoundryApiKey: "azure-v1-key",
      azureFoundryEndpoint: `${standinUrl()}/azure/v1/rerank`,
    });
    const m = marker();
    const result = await ask(`library novels ${m}`, { topK: 1, maxChunksPerDoc: "4" }, v1);
    expect(result.sourceDocuments?.map((d) => d.pageContent)).toEqual([LIBRARY]);
    const all = (await (await fetch(`${standinUrl()}/requests?contains=${m}`)).json()) as Recorded[];
    const sent = all.find((r) => r.path === "/azure/v1/rerank");
    expect(sent?.headers["api-key"]).toBe("azure-v1-key");
    expect(sent?.body).toMatchObject({ top_n: 1, max_chunks_per_doc: 4, return_documents: false });
  });

  it("the service's failure is a 502 with its message and without the key; a wrong key too", async () => {
    const err = await failureOf(ask(`bakery [fail-rerank] ${marker()}`));
    expect(err.status).toBe(502);
    expect(err.message).toContain("Azure rerank answered 500: stand-in azure rerank failure");
    const wrong = await credential("azureFoundryApi", {
      azureFoundryApiKey: "wrong-azure-key",
      azureFoundryEndpoint: `${misc()}/providers/cohere/v2/rerank`,
    });
    const denied = await failureOf(ask(`bakery ${marker()}`, {}, wrong));
    expect(denied).toMatchObject({ status: 502, message: expect.stringContaining("Azure rerank answered 401: Access denied") });
    expect(denied.message).not.toContain("wrong-azure-key");
  });

  it("a credential without its endpoint or key, or with a private endpoint, is a 400", async () => {
    const noUrl = await credential("azureFoundryApi", { azureFoundryApiKey: "k" });
    expect(await failureOf(ask(`bakery ${marker()}`, {}, noUrl))).toMatchObject({
      status: 400,
      message: expect.stringContaining("azureFoundryApi credential's azureFoundryEndpoint"),
    });
    const noKey = await credential("azureFoundryApi", { azureFoundryEndpoint: `${misc()}/providers/cohere/v2/rerank` });
    expect((await failureOf(ask(`bakery ${marker()}`, {}, noKey))).status).toBe(400);
    const priv = await credential("azureFoundryApi", {
      azureFoundryApiKey: "k",
      azureFoundryEndpoint: "http://10.1.2.3/providers/cohere/v2/rerank",
    });
    expect(await failureOf(ask(`bakery ${marker()}`, {}, priv))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^azureFoundryApi credential azureFoundryEndpoint refused by the outbound policy: 10\.1\.2\.3/),
    });
  });
});

describe("chatNemoGuardrails through POST /prediction", () => {
  const nemoFlow = (inputs: Record<string, unknown>) =>
    saveFlow([
      ["prompt_0", "promptTemplate", "Prompts", { template: "Question: {q}", promptValues: JSON.stringify({ q: "{{question}}" }) }],
      ["model_0", "chatNemoGuardrails", "Chat Models", inputs],
      ["chain_0", "llmChain", "Chains", { model: ref("model_0"), prompt: ref("prompt_0") }],
    ]);

  it("posts config_id and the messages to {baseUrl}/v1/chat/completions; the first message answers (streamed as one token)", async () => {
    const m = marker();
    const id = await nemoFlow({ configurationId: "cfg-support", baseUrl: misc() });
    const answer = await json("POST", `/prediction/${id}`, { body: { question: m } });
    expect(answer.text).toBe(`guarded by cfg-support: Question: ${m}`);
    const [sent] = await miscRequests(m);
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.body).toEqual({ config_id: "cfg-support", messages: [{ role: "user", content: `Question: ${m}` }] });
    const s = marker();
    const frames = await framesOf(await call("POST", `/prediction/${id}`, { body: { question: s, streaming: true } }));
    const tokens = frames.filter((f) => f.event === "token").map((f) => f.data);
    expect(tokens.join("")).toBe(`guarded by cfg-support: Question: ${s}`);
    expect(frames.at(-1)?.event).toBe("end");
  });

  it("the server's failure is a 502 with its message; missing or private base URL and no config id are 400s", async () => {
    const id = await nemoFlow({ configurationId: "cfg-support", baseUrl: `${misc()}/` });
    const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: `[fail] ${marker()}` } }), 502);
    expect(err.message).toContain("NeMo Guardrails answered 500: stand-in guardrails failure");
    const missing = await nemoFlow({ configurationId: "missing-config", baseUrl: misc() });
    const gone = await expectError(await call("POST", `/prediction/${missing}`, { body: { question: marker() } }), 502);
    expect(gone.message).toContain("NeMo Guardrails answered 422: Could not load the missing-config guardrails configuration.");
    for (const [inputs, text] of [
      [{ configurationId: "c" }, "chatNemoGuardrails needs its Base URL"],
      [{ baseUrl: misc() }, "chatNemoGuardrails needs its Configuration ID"],
      [{ configurationId: "c", baseUrl: "http://192.168.4.4:8000" }, "chatNemoGuardrails baseUrl refused by the outbound policy"],
    ] as const) {
      const bad = await nemoFlow(inputs);
      const e = await expectError(await call("POST", `/prediction/${bad}`, { body: { question: "hi" } }), 400);
      expect(e.message).toContain(text);
    }
  });
});

describe("promptLangFuse through POST /prediction", () => {
  let langfuse = "";
  beforeAll(async () => {
    langfuse = await storedCredential("langfuseApi", {
      langFuseSecretKey: "sk-lf-misc",
      langFusePublicKey: "pk-lf-misc",
      langFuseEndpoint: misc(),
    });
  });
  const langfuseFlow = (name: string, cred = langfuse) =>
    saveFlow([
      [
        "prompt_0",
        "promptLangFuse",
        "Prompts",
        { template: name, credential: cred, promptValues: JSON.stringify({ persona: "a pirate", question: "{{question}}" }) },
      ],
      standinModel("model_0", openai),
      ["chain_0", "llmChain", "Chains", { model: ref("model_0"), prompt: ref("prompt_0") }],
    ]);

  it("Langfuse's variables converted ({{var}} → {var}, JSON and {a: b} braces literal)", () => {
    expect(langfuseTemplate(LANGFUSE_TEXT)).toBe(
      'You are {persona}. Reply as JSON like {{"answer": "..."}} and keep {{note: literal}}. Question: {question}',
    );
  });

  it("fetches the prompt by name with Basic auth, then fills it as a promptTemplate", async () => {
    const m = marker();
    const name = `text-${m}`;
    const id = await langfuseFlow(name);
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `where? ${m}` } });
    expect(answer.text).toBe(
      `echo: You are a pirate. Reply as JSON like {"answer": "..."} and keep {note: literal}. Question: where? ${m}`,
    );
    const [sent] = await miscRequests(m);
    expect(sent.method).toBe("GET");
    expect(sent.path).toBe(`/api/public/v2/prompts/${encodeURIComponent(name)}`);
    expect(sent.headers.authorization).toBe(`Basic ${btoa("pk-lf-misc:sk-lf-misc")}`);
    expect((await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions"))).toHaveLength(1);
  });

  it("an unknown prompt or wrong keys are a 502 with Langfuse's message (no secret); a chat prompt or no name a 400", async () => {
    const unknown = await langfuseFlow(`nope-${marker()}`);
    const e404 = await expectError(await call("POST", `/prediction/${unknown}`, { body: { question: "hi" } }), 502);
    expect(e404.message).toMatch(/^Langfuse answered 404: Prompt not found/);
    const wrong = await storedCredential("langfuseApi", {
      langFuseSecretKey: "sk-lf-wrong",
      langFusePublicKey: "pk-lf-misc",
      langFuseEndpoint: misc(),
    });
    const denied = await expectError(
      await call("POST", `/prediction/${await langfuseFlow(`text-${marker()}`, wrong)}`, { body: { question: "hi" } }),
      502,
    );
    expect(denied.message).toContain("Langfuse answered 401: Invalid public or secret key");
    expect(denied.message).not.toContain("sk-lf-wrong");
    const chat = await expectError(
      await call("POST", `/prediction/${await langfuseFlow(`chat-${marker()}`)}`, { body: { question: "hi" } }),
      400,
    );
    expect(chat.message).toContain("is a chat prompt; this node takes text prompts");
    const empty = await expectError(await call("POST", `/prediction/${await langfuseFlow("")}`, { body: { question: "hi" } }), 400);
    expect(empty.message).toContain("give the Prompt Name of a Langfuse prompt");
  });
});

describe("chatAlibabaTongyi through POST /prediction", () => {
  const tongyiFlow = async (key: string, inputs: Record<string, unknown> = {}) => {
    const cred = await storedCredential("AlibabaApi", { alibabaApiKey: key });
    return saveFlow([
      ["prompt_0", "promptTemplate", "Prompts", { template: "Q: {q}", promptValues: JSON.stringify({ q: "{{question}}" }) }],
      ["model_0", "chatAlibabaTongyi", "Chat Models", { modelName: "qwen-plus", temperature: "0.3", credential: cred, ...inputs }],
      ["chain_0", "llmChain", "Chains", { model: ref("model_0"), prompt: ref("prompt_0") }],
    ]);
  };
  const withDashscope = async <T>(fn: () => Promise<T>) => {
    const restore = setVars({ DASHSCOPE_BASE_URL: misc() });
    try {
      return await fn();
    } finally {
      restore();
    }
  };

  it("DashScope's text-generation API at DASHSCOPE_BASE_URL: the body LangChain sends, an answer and a stream", async () => {
    const id = await tongyiFlow("dashscope-key");
    const m = marker();
    const answer = await withDashscope(() => json("POST", `/prediction/${id}`, { body: { question: m } }));
    expect(answer.text).toBe(`qwen qwen-plus: Q: ${m}`);
    const [sent] = await miscRequests(m);
    expect(sent.path).toBe("/api/v1/services/aigc/text-generation/generation");
    expect(sent.headers.authorization).toBe("Bearer dashscope-key");
    expect(sent.body).toEqual({
      model: "qwen-plus",
      parameters: { stream: false, result_format: "text", temperature: 0.3 },
      input: { messages: [{ role: "user", content: `Q: ${m}` }] },
    });
    const s = marker();
    const frames = await withDashscope(async () =>
      framesOf(await call("POST", `/prediction/${id}`, { body: { question: s, streaming: true } })),
    );
    const tokens = frames.filter((f) => f.event === "token").map((f) => f.data);
    expect(tokens.length).toBeGreaterThan(2);
    expect(tokens.join("")).toBe(`qwen qwen-plus: Q: ${s}`);
    const [streamed] = await miscRequests(s);
    expect(streamed.body.parameters).toMatchObject({ stream: true, incremental_output: true });
  });

  it("DashScope's errors are 502s with its message and without the key; no key is a 400", async () => {
    const wrong = await tongyiFlow("sk-wrong-dashscope");
    const denied = await withDashscope(async () =>
      expectError(await call("POST", `/prediction/${wrong}`, { body: { question: marker() } }), 502),
    );
    expect(denied.message).toContain("Alibaba Tongyi answered 401: Invalid API-key provided.");
    expect(denied.message).not.toContain("sk-wrong-dashscope");
    const ok = await tongyiFlow("dashscope-key");
    const failed = await withDashscope(async () =>
      expectError(await call("POST", `/prediction/${ok}`, { body: { question: `[fail] ${marker()}` } }), 502),
    );
    expect(failed.message).toContain("stand-in dashscope failure");
    const none = await tongyiFlow("");
    const missing = await withDashscope(async () =>
      expectError(await call("POST", `/prediction/${none}`, { body: { question: "hi" } }), 400),
    );
    expect(missing.message).toContain("chatAlibabaTongyi needs an AlibabaApi credential");
  });
});
