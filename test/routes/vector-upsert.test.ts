// POST /vector/upsert/{chatflowid}: the chatflow's loader → splitter → embeddings → vector store
// branch, JSON or multipart (files to loader inputs by extension, kept in R2), the per-chatflow
// key, the upsert history row, and the 400/401/404/415s.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, flowDataOf } from "../engine/helpers";
import { BAKERY, LIBRARY, TOWN_TEXT, faissIndexSize, flow, ref, retrievalFixtureFlow, standinModel } from "../engine/retrieval-flows";
import { call, expectError, json } from "../helpers";
import { signedIn, studio } from "../studio/helpers";

const credential = async (credentialName: string, plainDataObj: Record<string, unknown>) =>
  (await json("POST", "/credentials", { body: { name: credentialName, credentialName, plainDataObj } })).id as string;

/** The conversational retrieval fixture saved as a chatflow (model and embeddings at the stand-in). */
async function saveRetrievalFlow(extra: Record<string, unknown> = {}): Promise<string> {
  const flowData = retrievalFixtureFlow(
    await credential("mistralAIApi", { mistralAIAPIKey: "k" }),
    await credential("openAIApi", { openAIApiKey: "k" }),
  );
  return (await json("POST", "/chatflows", { body: { name: "retrieval", flowData, ...extra } })).id;
}

const saveFlow = async (flowData: string, extra: Record<string, unknown> = {}) =>
  (await json("POST", "/chatflows", { body: { name: "flow", flowData, ...extra } })).id as string;

function filesForm(files: Array<{ name: string; type: string; data: string | Uint8Array }>, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const f of files) form.append("files", new File([f.data], f.name, { type: f.type }));
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return form;
}

const town = (name = "town.txt", data = TOWN_TEXT) => ({ name, type: "text/plain", data });
const upsertForm = (id: string, form: FormData, token?: string | null) => call("POST", `/vector/upsert/${id}`, { raw: form, token });
const upsertJson = (id: string, body: unknown, token?: string | null) => call("POST", `/vector/upsert/${id}`, { body, token });
const historyOf = (id: string) => json<Array<{ result: string; flowData: string }>>("GET", `/upsert-history/${id}`);
const vectorsIn = async (namespace: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM vector_document WHERE namespace = ?").bind(namespace).first<{ n: number }>())?.n ?? 0;
const faissIn = faissIndexSize;

/** plainText → memoryVectorStore (local providers): its `text` can be overridden when apiConfig enables it. */
const plainTextFlow = (text = BAKERY) =>
  flow([
    ["loader_0", "plainText", "Document Loaders", { text }],
    ["emb_0", "localHashEmbeddings", "Embeddings"],
    ["vs_0", "memoryVectorStore", "Vector Stores", { document: [ref("loader_0")], embeddings: ref("emb_0") }, { output: "retriever" }],
    standinModel(),
    ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref("vs_0") }],
  ] as never);

describe("POST /vector/upsert/{id} (multipart)", () => {
  it("runs the fixture's branch on the uploaded text file: counts, addedDocs, the file in R2, a history row", async () => {
    const id = await saveRetrievalFlow();
    const res = await upsertForm(id, filesForm([town()]));
    expect(res.status).toBe(200);
    const body = await res.json<any>();
    expect(body).toMatchObject({ numAdded: 3, numUpdated: 0, numSkipped: 0, numDeleted: 0 });
    expect(Object.keys(body).sort()).toEqual(["addedDocs", "numAdded", "numDeleted", "numSkipped", "numUpdated"]);
    expect(body.addedDocs[0]).toEqual({ pageContent: BAKERY, metadata: { source: "town.txt", loc: { lines: { from: 1, to: 1 } } } });
    expect(await faissIn(`${id}_faiss_0`)).toBe(3);

    const stored = await env.FILES.get(`${id}/town.txt`);
    expect(await stored?.text()).toBe(TOWN_TEXT);

    const [history] = await historyOf(id);
    expect(JSON.parse(history.result)).toEqual({ numAdded: 3, numUpdated: 0, numSkipped: 0, numDeleted: 0 });
    const recorded = JSON.parse(history.flowData);
    expect(recorded.stopNodeId).toBe("faiss_0");
    expect(recorded.nodes.map((n: any) => n.id)).toEqual([
      "openAIEmbeddings_0",
      "recursiveCharacterTextSplitter_0",
      "textFile_0",
      "documentStore_0",
      "faiss_0",
    ]);
    expect(recorded.nodes.find((n: any) => n.id === "textFile_0").inputs.txtFile).toBe('FILE-STORAGE::["town.txt"]');
    expect(history.flowData).not.toContain("credential");
  });

  it("re-upserting the same file counts every chunk skipped (the store's own record manager); nothing is duplicated", async () => {
    const id = await saveRetrievalFlow();
    expect((await (await upsertForm(id, filesForm([town()]))).json<any>()).numAdded).toBe(3);
    const again = await (await upsertForm(id, filesForm([town()]))).json<any>();
    expect(again).toEqual({ numAdded: 0, numUpdated: 0, numSkipped: 3, numDeleted: 0, addedDocs: [] });
    expect(await faissIn(`${id}_faiss_0`)).toBe(3);
    expect(await historyOf(id)).toHaveLength(2);
  });

  it("form fields other than files/stopNodeId are overrideConfig entries (gated by apiConfig, as Flowise reads them)", async () => {
    const apiConfig = JSON.stringify({ overrideConfig: { status: true, nodes: { loader_0: [{ name: "text", enabled: true }] } } });
    const id = await saveFlow(plainTextFlow(), { apiConfig });
    const res = await upsertForm(id, filesForm([], { text: LIBRARY }));
    expect((await res.json<any>()).addedDocs).toEqual([{ pageContent: LIBRARY, metadata: {} }]);
    // Not enabled: the flow's own text.
    const closed = await saveFlow(plainTextFlow());
    expect((await (await upsertForm(closed, filesForm([], { text: LIBRARY }))).json<any>()).addedDocs[0].pageContent).toBe(BAKERY);
  });

  it("a file type no loader of the branch reads → 400 naming it; a file the loader cannot read → 415; nothing kept", async () => {
    const id = await saveRetrievalFlow();
    const pdf = await expectError(
      await upsertForm(id, filesForm([{ name: "report.pdf", type: "application/pdf", data: "%PDF-1.4" }])),
      400,
    );
    expect(pdf.message).toBe(
      "No document loader of this upsert reads report.pdf: a .pdf file goes to a pdfFile loader (its pdfFile input), and its file loaders: textFile_0 (textFile)",
    );
    await expectError(
      await upsertForm(id, filesForm([{ name: "photo.png", type: "image/png", data: new Uint8Array([137, 80, 78, 71, 0, 0]) }])),
      415,
    );
    await expectError(await upsertForm(id, filesForm([{ name: "empty.txt", type: "text/plain", data: "" }])), 400);
    expect((await env.FILES.list({ prefix: `${id}/` })).objects).toEqual([]);
    expect(await historyOf(id)).toEqual([]);
  });
});

describe("POST /vector/upsert/{id} (JSON)", () => {
  it("{} runs the flow as saved; overrideConfig applies where apiConfig enables it", async () => {
    const apiConfig = JSON.stringify({ overrideConfig: { status: true, nodes: { loader_0: [{ name: "text", enabled: true }] } } });
    const id = await saveFlow(plainTextFlow(), { apiConfig });
    expect(await (await upsertJson(id, {})).json<any>()).toMatchObject({ numAdded: 1, addedDocs: [{ pageContent: BAKERY }] });
    const res = await upsertJson(id, { overrideConfig: { text: LIBRARY } });
    // The namespace now holds the library only: the bakery was not in this upsert.
    expect(await res.json<any>()).toMatchObject({ numAdded: 1, numDeleted: 1, addedDocs: [{ pageContent: LIBRARY }] });
    expect((await call("POST", `/vector/upsert/${id}`, {})).status).toBe(200); // no body at all
  });

  it("the fixture's text file loader without a file → 400 saying how to give one", async () => {
    const id = await saveRetrievalFlow();
    const err = await expectError(await upsertJson(id, {}), 400);
    expect(err.message).toContain("Text File (textFile_0) has no file: upload one with POST /vector/upsert (multipart `files`)");
  });

  it("stopNodeId chooses among several vector stores; ambiguous and unknown ones are 400s listing them", async () => {
    const flowData = flow([
      ["loader_0", "plainText", "Document Loaders", { text: BAKERY }],
      ["emb_0", "localHashEmbeddings", "Embeddings"],
      ["vs_a", "faiss", "Vector Stores", { document: [ref("loader_0")], embeddings: ref("emb_0") }],
      ["vs_b", "memoryVectorStore", "Vector Stores", { document: [ref("loader_0")], embeddings: ref("emb_0") }],
    ] as never);
    const id = await saveFlow(flowData);
    expect((await expectError(await upsertJson(id, {}), 400)).message).toBe(
      "This chatflow has 2 vector stores fed by document loaders: vs_a (vs_a), vs_b (vs_b). Give stopNodeId to choose one",
    );
    expect((await expectError(await upsertJson(id, { stopNodeId: "nope_0" }), 400)).message).toBe(
      "stopNodeId nope_0 is not a node of this chatflow; its vector stores are: vs_a (vs_a), vs_b (vs_b)",
    );
    expect((await expectError(await upsertJson(id, { stopNodeId: "emb_0" }), 400)).message).toContain("is not a vector store");
    expect(await (await upsertJson(id, { stopNodeId: "vs_b" })).json<any>()).toMatchObject({ numAdded: 1 });
    expect([await faissIn(`${id}_vs_a`), await vectorsIn(`${id}_vs_b`)]).toEqual([0, 1]);
    expect(await (await upsertForm(id, filesForm([], { stopNodeId: "vs_a" }))).json<any>()).toMatchObject({ numAdded: 1 });
    expect(await faissIn(`${id}_vs_a`)).toBe(1);
  });

  it("a chatflow without a vector store branch → 400", async () => {
    const id = await saveFlow(flowDataOf(llmChain as unknown as Fixture));
    expect((await expectError(await upsertJson(id, {}), 400)).message).toBe(
      "This chatflow has no vector store to upsert into: upsert needs a document loader → vector store branch",
    );
  });

  it("bad bodies: malformed JSON, not an object, a bad stopNodeId, another content type, a non-UUID id", async () => {
    const id = await saveFlow(plainTextFlow());
    await expectError(await call("POST", `/vector/upsert/${id}`, { raw: "{nope", headers: { "content-type": "application/json" } }), 400);
    await expectError(await upsertJson(id, [1, 2]), 400);
    await expectError(await upsertJson(id, { stopNodeId: 42 }), 400);
    await expectError(await call("POST", `/vector/upsert/${id}`, { raw: "hello", headers: { "content-type": "text/plain" } }), 415);
    await expectError(await upsertJson("not-a-uuid", {}), 400);
  });
});

describe("POST /vector/upsert/{id}: who may call", () => {
  it("unknown chatflow → 404; no token → 401 even for a public chatflow; a bad token → 401", async () => {
    await expectError(await upsertJson(crypto.randomUUID(), {}), 404);
    const id = await saveFlow(plainTextFlow(), { isPublic: true });
    await expectError(await upsertJson(id, {}, null), 401);
    await expectError(await upsertJson(id, {}, "not-a-real-key-not-a-real-key"), 401);
    await expectError(await upsertJson(crypto.randomUUID(), {}, null), 401); // before revealing whether it exists
    expect(await vectorsIn(`${id}_vs_0`)).toBe(0);
  });

  it("a chatflow bound to an API key takes only that key (or the admin key)", async () => {
    const bound = await json("POST", "/apikey", { body: { keyName: "upsert bound" } });
    const other = await json("POST", "/apikey", { body: { keyName: "upsert other" } });
    const id = await saveFlow(plainTextFlow(), { apikeyid: bound.id });
    const refused = await expectError(await upsertJson(id, {}, other.apiKey), 401);
    expect(refused.message).toBe("Unauthorized: this chatflow requires its API key");
    expect((await upsertJson(id, {}, bound.apiKey)).status).toBe(200);
    expect((await upsertJson(id, {})).status).toBe(200); // admin
    // An unbound chatflow takes any valid key.
    expect((await upsertJson(await saveFlow(plainTextFlow()), {}, other.apiKey)).status).toBe(200);
  });
});

describe("POST /vector/internal-upsert/{id} (the studio canvas's Upsert button)", () => {
  const rateLimited = JSON.stringify({ rateLimit: { status: true, limitMax: 1, limitDuration: 60, limitMsg: "slow down" } });

  it("the signed-in person upserts any chatflow, bound to a key or rate-limited, as /vector/upsert does", async () => {
    const { cookie } = await signedIn();
    const bound = await json("POST", "/apikey", { body: { keyName: "internal upsert bound" } });
    const id = await saveFlow(plainTextFlow(), { apikeyid: bound.id, apiConfig: rateLimited });
    for (let i = 0; i < 3; i++) {
      const res = await studio("POST", `/vector/internal-upsert/${id}`, { cookie, body: {} });
      expect(res.status).toBe(200);
      expect(await res.json<any>()).toMatchObject({ numAdded: i === 0 ? 1 : 0, addedDocs: i === 0 ? [{ pageContent: BAKERY }] : [] });
    }
    expect(await vectorsIn(`${id}_vs_0`)).toBe(1);
    // The public endpoint keeps the flow's rate limit.
    expect((await upsertJson(id, {}, bound.apiKey)).status).toBe(200);
    expect((await upsertJson(id, {}, bound.apiKey)).status).toBe(429);
  });

  it("never anonymous, never from another origin; an unknown chatflow is a 404", async () => {
    const { cookie } = await signedIn();
    const id = await saveFlow(plainTextFlow(), { isPublic: true });
    const anonymous = await expectError(await studio("POST", `/vector/internal-upsert/${id}`, { body: {} }), 401);
    expect(anonymous.message).toBe("Unauthorized: sign in to the studio, or send a bearer token, to upsert");
    await expectError(
      await studio("POST", `/vector/internal-upsert/${id}`, { cookie, body: {}, origin: "https://elsewhere.example" }),
      403,
    );
    expect(await vectorsIn(`${id}_vs_0`)).toBe(0);
    await expectError(await studio("POST", `/vector/internal-upsert/${crypto.randomUUID()}`, { cookie, body: {} }), 404);
    // A bearer works too (the admin key here), with the flow's files as multipart.
    expect((await call("POST", `/vector/internal-upsert/${id}`, { body: {} })).status).toBe(200);
    expect(await vectorsIn(`${id}_vs_0`)).toBe(1);
  });
});

describe("OpenAPI", () => {
  it("documents POST /vector/upsert/{id} with JSON and multipart bodies, bearer only", async () => {
    const doc = await json("GET", "/openapi.json", { token: null });
    const op = doc.paths["/vector/upsert/{id}"].post;
    expect(op.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(op.requestBody.content).sort()).toEqual(["application/json", "multipart/form-data"]);
    expect(op.responses["200"].content["application/json"].schema.$ref).toBe("#/components/schemas/VectorUpsertResult");
  });
});

describe("deleting a chatflow deletes the vectors of its in-flow stores", () => {
  it("clears every table for its namespaces, and a chatflow recreated with the same id starts empty", async () => {
    const id = await saveRetrievalFlow();
    const other = await saveRetrievalFlow();
    for (const flowId of [id, other]) expect((await upsertForm(flowId, filesForm([town()]))).status).toBe(200);
    const rows = async (table: string, namespace: string) =>
      (await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE namespace = ?`).bind(namespace).first<{ n: number }>())?.n ?? 0;
    // The fixture's faiss (no basePath) keeps its index in R2 under the node's namespace, its record manager in D1.
    expect(await faissIn(`${id}_faiss_0`)).toBe(3);
    expect(await rows("record_manager", `${id}_faiss_0`)).toBeGreaterThan(0);

    expect(await json("DELETE", `/chatflows/${id}`)).toEqual({ deleted: 1 });
    expect(await faissIn(`${id}_faiss_0`)).toBe(0);
    expect(await rows("record_manager", `${id}_faiss_0`)).toBe(0);
    expect(await faissIn(`${other}_faiss_0`)).toBe(3); // another chatflow keeps its own
    expect(await rows("record_manager", `${other}_faiss_0`)).toBeGreaterThan(0);

    // Same id again (as a Flowise migration does): the first upsert adds everything anew.
    const flowData = (await json("GET", `/chatflows/${other}`)).flowData;
    await json("POST", "/chatflows", { body: { id, name: "again", flowData } });
    expect(await (await upsertForm(id, filesForm([town()]))).json()).toMatchObject({ numAdded: 3, numSkipped: 0 });
  });
});
