// chatBaiduWenxin and baiduQianfanEmbeddings over Qianfan's wenxinworkshop API (test/standin/baidu-qianfan.mjs,
// which verifies the bce-auth-v1 signature itself): a saved chatflow through POST /prediction (answer and
// stream), a document store upsert and query; what the stand-in received; Qianfan's errors → 502 without
// the secret, no credential or a private BAIDU_QIANFAN_BASE_URL → 400.
import { describe, expect, inject, it } from "vitest";
import { supportedChatModels } from "../../src/providers/chat/registry";
import { supportedEmbeddings } from "../../src/providers/embeddings/registry";
import { call, expectError, json } from "../helpers";
import { newStore, upsert } from "../routes/document-store-helpers";
import { framesOf, setVars } from "../security/helpers";
import { marker } from "./helpers";
import { flow, ref } from "./retrieval-flows";

type Spec = Parameters<typeof flow>[0][number];
type Recorded = { method: string; path: string; headers: Record<string, string>; body: Record<string, any> };

const qianfan = () => inject("baiduQianfanUrl");
const received = async (m: string): Promise<Recorded[]> => (await fetch(`${qianfan()}/requests?contains=${m}`)).json();
const storedCredential = async (plainDataObj: Record<string, unknown>) =>
  (await json("POST", "/credentials", { body: { name: "qianfan", credentialName: "baiduQianfanApi", plainDataObj } })).id as string;
const keys = (sk = "qianfan-sk") => storedCredential({ qianfanAccessKey: "qianfan-ak", qianfanSecretKey: sk });
const saveFlow = async (specs: Spec[]) =>
  (await json("POST", "/chatflows", { body: { name: "wenxin", flowData: flow(specs) } })).id as string;

async function withQianfan<T>(fn: () => Promise<T>, base = qianfan()): Promise<T> {
  const restore = setVars({ BAIDU_QIANFAN_BASE_URL: base });
  try {
    return await fn();
  } finally {
    restore();
  }
}

const wenxinFlow = async (cred: string, inputs: Record<string, unknown> = {}) =>
  saveFlow([
    ["prompt_0", "chatPromptTemplate", "Prompts", { systemMessagePrompt: "You are terse.", humanMessagePrompt: "Q: {question}" }],
    ["model_0", "chatBaiduWenxin", "Chat Models", { modelName: "ernie-4.0-8k", temperature: "0.3", credential: cred, ...inputs }],
    ["chain_0", "llmChain", "Chains", { model: ref("model_0"), prompt: ref("prompt_0") }],
  ]);

it("both nodes are registered", () => {
  expect(supportedChatModels()).toContain("chatBaiduWenxin");
  expect(supportedEmbeddings()).toContain("baiduQianfanEmbeddings");
});

describe("chatBaiduWenxin through POST /prediction", () => {
  it("the model's endpoint, signed; system apart from the messages; an answer and a stream", async () => {
    const id = await wenxinFlow(await keys(), { topP: "0.8", penaltyScore: "1.2", userId: "u-7" });
    const m = marker();
    const answer = await withQianfan(() => json("POST", `/prediction/${id}`, { body: { question: m } }));
    expect(answer.text).toBe(`ernie completions_pro: Q: ${m}`);
    const [sent] = await received(m);
    expect(sent.path).toBe("/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro");
    expect(sent.headers.authorization).toMatch(
      /^bce-auth-v1\/qianfan-ak\/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\/1800\/host;x-bce-date\/[0-9a-f]{64}$/,
    );
    expect(sent.headers.authorization).not.toContain("qianfan-sk");
    expect(sent.body).toEqual({
      messages: [{ role: "user", content: `Q: ${m}` }],
      system: "You are terse.",
      stream: false,
      temperature: 0.3,
      top_p: 0.8,
      penalty_score: 1.2,
      user_id: "u-7",
    });
    const s = marker();
    const frames = await withQianfan(async () =>
      framesOf(await call("POST", `/prediction/${id}`, { body: { question: s, streaming: true } })),
    );
    const tokens = frames.filter((f) => f.event === "token").map((f) => f.data);
    expect(tokens.length).toBeGreaterThan(2);
    expect(tokens.join("")).toBe(`ernie completions_pro: Q: ${s}`);
    const [streamed] = await received(s);
    expect(streamed.body.stream).toBe(true);
  });

  it("a model without an entry in the SDK's table goes to its lower-cased name; customModelName wins", async () => {
    const id = await wenxinFlow(await keys(), { modelName: "ERNIE-4.5-8K-Preview" });
    const m = marker();
    expect((await withQianfan(() => json("POST", `/prediction/${id}`, { body: { question: m } }))).text).toContain("ernie-4.5-8k-preview");
    const custom = await wenxinFlow(await keys(), { customModelName: "ernie-speed-8k" });
    const c = marker();
    expect((await withQianfan(() => json("POST", `/prediction/${custom}`, { body: { question: c } }))).text).toBe(
      `ernie ernie_speed: Q: ${c}`,
    );
  });

  it("Qianfan's errors are 502s with its message, never the secret; no keys or a private base URL is a 400", async () => {
    const wrong = await wenxinFlow(await keys("sk-wrong-qianfan"));
    const denied = await withQianfan(async () =>
      expectError(await call("POST", `/prediction/${wrong}`, { body: { question: marker() } }), 502),
    );
    expect(denied.message).toContain("IAM Certification failed");
    expect(denied.message).not.toContain("sk-wrong-qianfan");
    const ok = await wenxinFlow(await keys());
    const failed = await withQianfan(async () =>
      expectError(await call("POST", `/prediction/${ok}`, { body: { question: `[fail] ${marker()}` } }), 502),
    );
    expect(failed.message).toContain("336000 stand-in qianfan failure");
    const frames = await withQianfan(async () =>
      framesOf(await call("POST", `/prediction/${ok}`, { body: { question: `[fail] ${marker()}`, streaming: true } })),
    );
    expect(JSON.stringify(frames.filter((f) => f.event === "error"))).toContain("336000 stand-in qianfan failure");
    const none = await wenxinFlow(await storedCredential({ qianfanAccessKey: "qianfan-ak" }));
    const missing = await withQianfan(async () =>
      expectError(await call("POST", `/prediction/${none}`, { body: { question: "hi" } }), 400),
    );
    expect(missing.message).toContain("chatBaiduWenxin needs a baiduQianfanApi credential");
    const privateHost = await withQianfan(
      async () => expectError(await call("POST", `/prediction/${ok}`, { body: { question: "hi" } }), 400),
      "http://10.0.0.7",
    );
    expect(privateHost.message).toMatch(/^BAIDU_QIANFAN_BASE_URL refused by the outbound policy/);
  });
});

describe("a document store with baiduQianfanEmbeddings", () => {
  it("upserts in batches over the embeddings endpoint, signed; a query answers the right chunk", async () => {
    const m = marker();
    const cred = await keys();
    const store = await newStore(`qianfan ${m}`);
    const embedding = { name: "baiduQianfanEmbeddings", config: { credential: cred, modelName: "bge-large-en", batchSize: 2 } };
    const paragraphs = [
      `Glaciers carve valleys over centuries ${m}.`,
      `Lighthouses guide ships along rocky coasts ${m}.`,
      `Volcanoes erupt molten rock and ash ${m}.`,
    ];
    await withQianfan(async () => {
      const up = await upsert(store.id, {
        embedding,
        vectorStore: { name: "localVectorStore" },
        loader: { name: "plainText", config: { text: paragraphs.join("\n\n") } },
        splitter: { name: "characterTextSplitter", config: { chunkSize: 60, chunkOverlap: 0, separator: "\n\n" } },
      });
      expect(up.numAdded).toBe(3);
      const found = await json("POST", "/document-store/vectorstore/query", {
        body: { storeId: store.id, query: `lighthouses guide ships ${m}`, inputs: { topK: 1 } },
      });
      expect(found.docs.map((d: { pageContent: string }) => d.pageContent)).toEqual([paragraphs[1]]);
    });
    const requests = await received(m);
    expect(requests.map((r) => [r.path, r.body.input.length])).toEqual([
      ["/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/bge_large_en", 2],
      ["/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/bge_large_en", 1],
      ["/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/bge_large_en", 1],
    ]);
    expect(requests.every((r) => r.headers.authorization.startsWith("bce-auth-v1/qianfan-ak/"))).toBe(true);
  });

  it("a refused signature or a failing embedding is a 502 without the secret", async () => {
    const m = marker();
    const store = await newStore(`qianfan bad ${m}`);
    const embedding = { name: "baiduQianfanEmbeddings", config: { credential: await keys("sk-bad-embed") } };
    const res = await withQianfan(() =>
      upsert(
        store.id,
        { embedding, vectorStore: { name: "localVectorStore" }, loader: { name: "plainText", config: { text: `one ${m}` } } },
        502,
      ),
    );
    expect(JSON.stringify(res)).toContain("IAM Certification failed");
    expect(JSON.stringify(res)).not.toContain("sk-bad-embed");
  });
});
