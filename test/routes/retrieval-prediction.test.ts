// Retrieval end to end over HTTP: Flowise's conversational retrieval template upserted through
// POST /vector/upsert then asked through POST /prediction (answer, stored messages, memory, sources
// in JSON, on the stored message and in the stream); a documentStore retriever over a store filled
// through POST /document-store/upsert; retrievalQAChain; a toolAgent with retrieverTool; an
// assistant with file_search over a document store.
import { describe, expect, it } from "vitest";
import { standinUrl } from "../engine/helpers";
import { BAKERY, LIBRARY, STATION, TOWN_TEXT, flow, ref, retrievalFixtureFlow, standinModel } from "../engine/retrieval-flows";
import { call, json } from "../helpers";
import { LOCAL, newStore, upsert as storeUpsert } from "./document-store-helpers";

const credential = async (credentialName: string, plainDataObj: Record<string, unknown>) =>
  (await json("POST", "/credentials", { body: { name: credentialName, credentialName, plainDataObj } })).id as string;

const CHAIN_LABEL = "Conversational Retrieval QA Chain";

/** The fixture as exported (model and embeddings at the stand-in), with returnSourceDocuments open to overrides. */
async function saveRetrievalFlow(): Promise<string> {
  const flowData = retrievalFixtureFlow(
    await credential("mistralAIApi", { mistralAIAPIKey: "k" }),
    await credential("openAIApi", { openAIApiKey: "k" }),
  );
  const apiConfig = JSON.stringify({
    overrideConfig: { status: true, nodes: { [CHAIN_LABEL]: [{ name: "returnSourceDocuments", enabled: true }] } },
  });
  return (await json("POST", "/chatflows", { body: { name: "retrieval", flowData, apiConfig } })).id;
}

async function upsertTown(id: string) {
  const form = new FormData();
  form.append("files", new File([TOWN_TEXT], "town.txt", { type: "text/plain" }));
  const res = await call("POST", `/vector/upsert/${id}`, { raw: form });
  expect(res.status).toBe(200);
  return res.json<any>();
}

const saveFlow = async (flowData: string) => (await json("POST", "/chatflows", { body: { name: "flow", flowData } })).id as string;
const chatRequestsWith = async (m: string) =>
  ((await (await fetch(`${standinUrl()}/requests?contains=${m}`)).json()) as any[]).filter((r) => r.path.endsWith("/chat/completions"));
const marker = () => `m${crypto.randomUUID().slice(0, 8)}`;
const withSources = { returnSourceDocuments: true };

/** The data frames of an event stream, in order. */
async function frames(res: Response): Promise<Array<{ event: string; data: any }>> {
  const raw = await res.text();
  return raw
    .split("\n\n")
    .map((block) => block.split("\n").find((l) => l.startsWith("data:")))
    .filter(Boolean)
    .map((l) => JSON.parse(l!.slice(5)));
}

describe("conversational-retrieval-qa-chain.json: POST /vector/upsert, then POST /prediction", () => {
  it("answers from the upserted file; sources (relevant chunk first) in the answer and on the stored message", async () => {
    const id = await saveRetrievalFlow();
    expect(await upsertTown(id)).toMatchObject({ numAdded: 3 });
    const m = marker();
    const question = `When does the bakery open in the morning? ${m}`;
    const answer = await json("POST", `/prediction/${id}`, { body: { question, overrideConfig: withSources } });
    expect(answer).toMatchObject({ text: `echo: ${question}`, question, memoryType: null, usedTools: [], isStreamValid: true });
    expect(answer.sourceDocuments.map((d: any) => d.pageContent)).toEqual([BAKERY, expect.any(String), expect.any(String)]);
    expect(answer.sourceDocuments[0].metadata).toMatchObject({ source: "town.txt" });
    const [sent] = await chatRequestsWith(m);
    expect(sent.body.messages[0].content).toContain(BAKERY);

    const stored = await json<any[]>("GET", `/chatmessage/${id}`);
    expect(stored.map((s) => [s.role, s.content])).toEqual([
      ["userMessage", question],
      ["apiMessage", answer.text],
    ]);
    expect(stored[1].sourceDocuments).toEqual(answer.sourceDocuments);
    expect(stored[1].id).toBe(answer.chatMessageId);
  });

  it("two turns: the second one's rephrase step sees the first exchange (default memory: the stored messages)", async () => {
    const id = await saveRetrievalFlow();
    await upsertTown(id);
    const first = await json("POST", `/prediction/${id}`, { body: { question: "Which platform do night trains leave from?" } });
    expect(first.sourceDocuments).toEqual([]); // not asked for
    const m = marker();
    const second = await json("POST", `/prediction/${id}`, {
      body: { question: `And where do taxis wait? ${m}`, chatId: first.chatId, overrideConfig: withSources },
    });
    const [rephrase, response] = await chatRequestsWith(m);
    expect(rephrase.body.messages[0].content).toContain(
      `human: Which platform do night trains leave from?\nai: ${first.text}\nFollow Up Input: And where do taxis wait? ${m}`,
    );
    expect(response.body.messages.slice(1).map((x: any) => x.role)).toEqual(["user", "assistant", "user"]);
    expect(second.sourceDocuments[0].pageContent).toBe(STATION);
    expect(await json<any[]>("GET", `/chatmessage/${id}?chatId=${first.chatId}`)).toHaveLength(4);
  });

  it("streams: tokens, then the sourceDocuments frame (relevant chunk first), metadata, end; the stored message has them", async () => {
    const id = await saveRetrievalFlow();
    await upsertTown(id);
    const question = `Is there a poetry circle at the library? ${marker()}`;
    const res = await call("POST", `/prediction/${id}`, { body: { question, streaming: true, overrideConfig: withSources } });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const list = await frames(res);
    const events = list.map((f) => f.event);
    expect(events[0]).toBe("start");
    expect(events.slice(-3)).toEqual(["sourceDocuments", "metadata", "end"]);
    expect(events.filter((e) => e === "token").length).toBeGreaterThan(3);
    const tokens = list
      .filter((f) => f.event === "token")
      .map((f) => f.data)
      .join("");
    expect(tokens).toBe(`echo: ${question}`);
    const sources = list.find((f) => f.event === "sourceDocuments")!.data;
    expect(sources[0].pageContent).toBe(LIBRARY);
    const { chatMessageId } = list.find((f) => f.event === "metadata")!.data;
    const stored = (await json<any[]>("GET", `/chatmessage/${id}`)).find((x) => x.id === chatMessageId);
    expect(stored.sourceDocuments).toEqual(sources);
  });
});

describe("retrieval flows over document stores and in-flow stores", () => {
  it("a documentStore retriever over a store filled through POST /document-store/upsert (Workers AI + Vectorize stand-ins)", async () => {
    const store = await newStore("town, default providers");
    await storeUpsert(store.id, {
      loader: { name: "plainText", config: { text: TOWN_TEXT } },
      splitter: { name: "recursiveCharacterTextSplitter", config: { chunkSize: 1000 } },
    });
    const id = await saveFlow(
      flow([
        ["documentStore_0", "documentStore", "Vector Stores", { selectedStore: store.id, topK: 2 }, { output: "retriever" }],
        standinModel(),
        [
          "chain_0",
          "conversationalRetrievalQAChain",
          "Chains",
          { model: ref("model_0"), vectorStoreRetriever: ref("documentStore_0"), returnSourceDocuments: true },
        ],
      ] as never),
    );
    const answer = await json("POST", `/prediction/${id}`, { body: { question: "sourdough croissants at the bakery" } });
    expect(answer.sourceDocuments).toHaveLength(2);
    expect(answer.sourceDocuments[0].pageContent).toBe(BAKERY);
  });

  it("retrievalQAChain over a plainText → memoryVectorStore branch upserted with JSON", async () => {
    const id = await saveFlow(
      flow([
        ["splitter_0", "recursiveCharacterTextSplitter", "Text Splitters", { chunkSize: 1000 }],
        ["loader_0", "plainText", "Document Loaders", { text: TOWN_TEXT, textSplitter: ref("splitter_0") }],
        ["emb_0", "localHashEmbeddings", "Embeddings"],
        [
          "vs_0",
          "memoryVectorStore",
          "Vector Stores",
          { document: [ref("loader_0")], embeddings: ref("emb_0"), topK: 1 },
          { output: "retriever" },
        ],
        standinModel(),
        [
          "chain_0",
          "retrievalQAChain",
          "Chains",
          { model: ref("model_0"), vectorStoreRetriever: ref("vs_0"), returnSourceDocuments: true },
        ],
      ] as never),
    );
    expect(await json("POST", `/vector/upsert/${id}`, { body: {} })).toMatchObject({ numAdded: 3 });
    const m = marker();
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `reading room librarians ${m}` } });
    expect(answer.sourceDocuments.map((d: any) => d.pageContent)).toEqual([LIBRARY]);
    expect((await chatRequestsWith(m))[0].body.messages[0].content).toContain(LIBRARY);
  });

  it("a toolAgent with a retrieverTool: usedTools and sourceDocuments in JSON and in the stream", async () => {
    const store = await newStore("agent docs");
    await storeUpsert(store.id, {
      loader: { name: "plainText", config: { text: TOWN_TEXT } },
      splitter: { name: "recursiveCharacterTextSplitter", config: { chunkSize: 1000 } },
      ...LOCAL,
    });
    const id = await saveFlow(
      flow([
        ["documentStore_0", "documentStore", "Vector Stores", { selectedStore: store.id, topK: 1 }, { output: "retriever" }],
        [
          "retrieverTool_0",
          "retrieverTool",
          "Tools",
          { name: "town_docs", description: "Facts about the town", retriever: ref("documentStore_0"), returnSourceDocuments: true },
        ],
        standinModel(),
        ["memory_0", "bufferMemory", "Memory"],
        ["agent_0", "toolAgent", "Agents", { model: ref("model_0"), tools: [ref("retrieverTool_0")], memory: ref("memory_0") }],
      ] as never),
    );
    const question = '[call town_docs {"input":"chess evenings at the library"}]';
    const answer = await json("POST", `/prediction/${id}`, { body: { question } });
    expect(answer.usedTools).toEqual([{ tool: "town_docs", toolInput: { input: "chess evenings at the library" }, toolOutput: LIBRARY }]);
    expect(answer.sourceDocuments.map((d: any) => d.pageContent)).toEqual([LIBRARY]);
    expect(answer.text).toBe(`tools said: ${LIBRARY}`);

    const list = await frames(await call("POST", `/prediction/${id}`, { body: { question, streaming: true } }));
    const events = list.map((f) => f.event);
    expect(events).toContain("usedTools");
    expect(events.slice(-3)).toEqual(["sourceDocuments", "metadata", "end"]);
    expect(list.find((f) => f.event === "sourceDocuments")!.data.map((d: any) => d.pageContent)).toEqual([LIBRARY]);
  });
});

describe("an assistant with file_search over a document store", () => {
  it("POST /prediction/{assistantId}: the model calls the store's retriever tool and answers from it", async () => {
    const store = await newStore("assistant docs");
    await storeUpsert(store.id, {
      loader: { name: "plainText", config: { text: TOWN_TEXT } },
      splitter: { name: "recursiveCharacterTextSplitter", config: { chunkSize: 1000 } },
    });
    const cred = await credential("openAIApi", { openAIApiKey: "sk-test", basePath: `${standinUrl()}/v1` });
    const assistant = await json("POST", "/assistants", {
      body: {
        credential: cred,
        details: {
          model: "m",
          instructions: "Answer from the documents.",
          tools: ["file_search"],
          tool_resources: { file_search: { document_store_ids: [store.id] } },
        },
      },
    });
    const m = marker();
    const question = `[call file_search_0 {"input":"left-luggage office at the railway station"}] ${m}`;
    const answer = await json("POST", `/prediction/${assistant.id}`, { body: { question } });
    expect(answer.usedTools).toEqual([
      {
        tool: "file_search_0",
        toolInput: { input: "left-luggage office at the railway station" },
        toolOutput: expect.stringContaining(STATION),
      },
    ]);
    expect(answer.sourceDocuments[0].pageContent).toBe(STATION);
    expect(answer.text).toContain(`tools said: ${STATION}`);
    const [first] = await chatRequestsWith(m);
    expect(first.body.messages[0]).toEqual({ role: "system", content: "Answer from the documents." });
    expect(first.body.tools[0].function.name).toBe("file_search_0");

    const stored = await json<any[]>("GET", `/chatmessage/${assistant.id}`);
    expect(stored[1].sourceDocuments[0].pageContent).toBe(STATION);
    expect(stored[1].usedTools[0].tool).toBe("file_search_0");
  });

  it("a document store that does not exist → 400 naming it, nothing stored", async () => {
    const ghost = crypto.randomUUID();
    const cred = await credential("openAIApi", { openAIApiKey: "sk-test", basePath: `${standinUrl()}/v1` });
    const assistant = await json("POST", "/assistants", {
      body: {
        credential: cred,
        details: { model: "m", tools: ["file_search"], tool_resources: { file_search: { document_store_ids: [ghost] } } },
      },
    });
    const res = await call("POST", `/prediction/${assistant.id}`, { body: { question: "q" } });
    expect(res.status).toBe(400);
    expect((await res.json<any>()).message).toContain(ghost);
    expect(await json("GET", `/chatmessage/${assistant.id}`)).toEqual([]);
  });
});
