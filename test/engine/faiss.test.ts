// faiss: Flowise's on-disk FAISS index becomes one R2 object per basePath (src/providers/vectorstores/
// faiss-r2.ts), searched by cosine in the worker. Shared by every flow naming the basePath (as a
// folder is), replaced by each upsert, safe under concurrent writes; and Flowise's "Local QnA"
// template (textFile → faiss with localAIEmbeddings, chatOllama) saved as exported and answering.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { planFlowUpsert, runUpsert } from "../../src/engine/chatflow/upsert";
import { LocalHashEmbeddings } from "../../src/providers/embeddings/local-hash";
import { FaissR2Store, faissKey } from "../../src/providers/vectorstores/faiss-r2";
import { flowDataWarning } from "../../src/services/chatflows";
import localQna from "./fixtures/local-qna.json";
import { type Fixture, flowDataOf, makeCtx, marker, requestsWith, runFlow, standinUrl } from "./helpers";
import { BAKERY, LIBRARY, STATION, TOWN_TEXT, flow, ref, standinModel, textFile } from "./retrieval-flows";

const err = async (p: Promise<unknown>) =>
  (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status: number; message: string };
const upsertFlow = async (flowData: string, over: Parameters<typeof makeCtx>[1] = {}) => {
  const { graph, plan } = planFlowUpsert(flowData);
  return runUpsert(graph, plan, makeCtx("", over));
};

/** plainText → localHashEmbeddings → faiss(basePath) → retrievalQAChain; `text` "" gives a flow without loaders. */
const faissFlow = (basePath: string, text: string, embeddingDims?: number) =>
  flow([
    ...(text
      ? ([
          ["loader_0", "plainText", "Document Loaders", { text, textSplitter: ref("splitter_0") }, { output: "document" }],
          ["splitter_0", "recursiveCharacterTextSplitter", "Text Splitters", { chunkSize: 1000, chunkOverlap: "" }],
        ] as const)
      : []),
    ["emb_0", "localHashEmbeddings", "Embeddings", embeddingDims ? { dimensions: embeddingDims } : {}],
    [
      "faiss_0",
      "faiss",
      "Vector Stores",
      { ...(text ? { document: [ref("loader_0")] } : {}), embeddings: ref("emb_0"), basePath, topK: "1" },
      { output: "retriever" },
    ],
    standinModel(),
    ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref("faiss_0"), returnSourceDocuments: true }],
  ] as never);

describe("faiss (an index in R2 per basePath)", () => {
  it("upsert writes the basePath's index to R2; any flow naming that basePath answers from it; the next upsert replaces it", async () => {
    const basePath = `C:\\Users\\me\\faiss-${marker()}`;
    expect(await upsertFlow(faissFlow(basePath, TOWN_TEXT))).toMatchObject({ numAdded: 3 });
    const obj = await env.FILES.head(await faissKey(basePath, "unused"));
    expect(obj?.customMetadata).toEqual({ basePath });

    // Another chatflow, no loaders: loads the index from the basePath, as Flowise's FaissStore.load does.
    const reader = faissFlow(basePath, "");
    const result = await runFlow(reader, makeCtx("Where do night trains depart from, which platform?"));
    expect(result.sourceDocuments?.map((d) => d.pageContent)).toEqual([STATION]);

    expect(await upsertFlow(faissFlow(basePath, LIBRARY), { chatflowid: crypto.randomUUID() })).toMatchObject({
      numAdded: 0,
      numSkipped: 1,
      numDeleted: 2,
    }); // the library chunk was already there
    expect(
      (await runFlow(reader, makeCtx("Where do night trains depart from, which platform?"))).sourceDocuments?.map((d) => d.pageContent),
    ).toEqual([LIBRARY]);
  });

  it("another basePath is another index; an embedding of other dimensions is a 400 naming both", async () => {
    const a = `/data/${marker()}`;
    await upsertFlow(faissFlow(a, BAKERY));
    const empty = await runFlow(faissFlow(`/data/${marker()}`, ""), makeCtx("bakery"));
    expect(empty.sourceDocuments).toEqual([]);
    const e = await err(runFlow(faissFlow(a, "", 64), makeCtx("bakery")));
    expect(e.status).toBe(400);
    expect(e.message).toContain("but the embedding gives 64");
  });

  it("concurrent writes into one index all land (etag-conditional R2 writes)", async () => {
    const emb = new LocalHashEmbeddings({});
    const open = () => new FaissR2Store(emb, env.FILES, `/shared/${basePathId}`, "ns");
    const basePathId = marker();
    const texts = Array.from({ length: 6 }, (_, i) => `document number ${i} about ${["bread", "books", "trains"][i % 3]}`);
    await Promise.all(texts.map((t, i) => open().addDocuments([{ pageContent: t, metadata: { i } }], { ids: [`id-${i}`] })));
    expect([...(await open().has(texts.map((_, i) => `id-${i}`)))].sort()).toEqual(texts.map((_, i) => `id-${i}`));
    await open().delete({ ids: ["id-0", "id-1"] });
    expect((await open().has(["id-0", "id-1", "id-2"])).size).toBe(1);
    expect(await open().clear()).toBe(4);
  });
});

describe("Local QnA template (textFile → faiss with localAIEmbeddings; chatOllama)", () => {
  const flowData = () =>
    flowDataOf(localQna as unknown as Fixture, (n) => {
      n.get("localAIEmbeddings_0")!.data.inputs!.basePath = `${standinUrl()}/v1`;
      n.get("chatOllama_0")!.data.inputs!.baseUrl = standinUrl();
    });

  it("saves without a warning", () => {
    expect(flowDataWarning(flowDataOf(localQna as unknown as Fixture))).toBeUndefined();
  });

  it("upserts an uploaded text file into the basePath's index, then answers from it through Ollama's API", async () => {
    const data = flowData();
    const chatflowid = crypto.randomUUID();
    // The text is marked: other files' tests embed the same town text at the same time.
    const upload = marker();
    const files = { txtFile: [textFile("town.txt", `${TOWN_TEXT} ${upload}`)] };
    expect(await upsertFlow(data, { chatflowid, files })).toMatchObject({ numAdded: 3 });
    const embedded = (await requestsWith(upload)).filter((r) => r.path === "/v1/embeddings");
    expect(embedded.length).toBeGreaterThan(0);
    expect(embedded[0].body).toMatchObject({ model: "text-embedding-ada-002" });

    const m = marker();
    await runFlow(data, makeCtx(`When does the bakery open in the morning? ${m}`, { chatflowid }));
    const chat = (await requestsWith(m)).filter((r) => r.path === "/v1/chat/completions");
    expect(chat.at(-1)?.body.model).toBe("llama2");
    expect(chat.at(-1)?.body.messages[0].content).toContain("Sunrise Bakery");
  });
});
