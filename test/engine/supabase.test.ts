// The supabase vector store against its PostgREST stand-in (test/standin/supabase.mjs), which keeps
// LangChain's documents tables and answers their match functions by cosine: upsert and prediction in
// a chatflow (rows {id, content, metadata, embedding}, apikey and bearer), the record manager
// (unchanged chunks skipped, asked of Supabase; removed ones deleted there), supabaseMetadataFilter
// and supabaseRPCFilter, mmr, a table Flowise filled, and a Supabase that is down, slow or refuses.
import { env } from "cloudflare:workers";
import { Document } from "@langchain/core/documents";
import { describe, expect, inject, it } from "vitest";
import { LOCAL_HASH_DIMS, LocalHashEmbeddings } from "../../src/providers/embeddings/local-hash";
import { buildVectorStore } from "../../src/providers/vectorstores/registry";
import { credential, db, marker } from "./helpers";
import {
  askNightTrains,
  bookkeepingTexts,
  err,
  otherSizeFlow,
  predict,
  storeFlow,
  storeRequests,
  upsertFlow,
  type TownFlowOptions,
} from "./hosted-store-flows";
import { BAKERY, LIBRARY, STATION } from "./retrieval-flows";

const supabase = () => inject("supabaseUrl");

const supabaseRequests = async (table: string) =>
  (await storeRequests(supabase())).filter(
    (r) => r.path.startsWith(`/rest/v1/${table}?`) || r.path.startsWith(`/rest/v1/rpc/match_${table}`),
  );
const dump = async (table: string) =>
  (await (await fetch(`${supabase()}/dump/${table}`)).json()) as {
    rows: Array<{ id: string; content: string; metadata: Record<string, any>; embedding: number[] }>;
  };
const supabaseKey = (key = `sb-key-${marker()}`) => credential("supabaseApi", { supabaseApiKey: key });

/** The town flow with a supabase node on its stand-in. */
function supabaseFlow({ table, topK, extra, ...rest }: TownFlowOptions & { credential: string; table: string }) {
  return storeFlow({
    id: "supabase_0",
    node: "supabase",
    inputs: { supabaseProjUrl: supabase(), tableName: table, queryName: `match_${table}`, topK: topK ?? "1", ...extra },
    ...rest,
  });
}

describe("supabase", () => {
  it("upserts LangChain's rows (merged on id) with apikey and bearer, answers from the match function", async () => {
    const cred = await supabaseKey("sb-secret-123456");
    const table = `t_${marker()}`;
    const flowData = supabaseFlow({ credential: cred, table });
    const chatflowid = crypto.randomUUID();
    expect(await upsertFlow(flowData, { chatflowid })).toMatchObject({ numAdded: 3, numSkipped: 0 });

    const received = await supabaseRequests(table);
    const insert = received.find((r) => r.method === "POST" && r.path === `/rest/v1/${table}?on_conflict=id`);
    expect(insert?.headers.prefer).toBe("resolution=merge-duplicates,return=minimal");
    expect(Object.keys(insert?.body[0]).sort()).toEqual(["content", "embedding", "id", "metadata"]);
    for (const r of received) {
      expect(r.headers.apikey).toBe("sb-secret-123456");
      expect(r.headers.authorization).toBe("Bearer sb-secret-123456");
    }
    const stored = await dump(table);
    expect(stored.rows.map((r) => r.content).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    expect(stored.rows[0].metadata).toMatchObject({ source: "town", loc: { lines: { from: expect.any(Number) } } });
    for (const r of stored.rows) expect(r.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);

    expect(await bookkeepingTexts("supabase", `${chatflowid}_supabase_0`)).toEqual(["", "", ""]);

    const { result, prompt } = await askNightTrains(flowData, { chatflowid });
    expect(result.sourceDocuments).toEqual([{ pageContent: STATION, metadata: expect.objectContaining({ source: "town" }) }]);
    expect(prompt).toContain(STATION);
    const match = (await supabaseRequests(table)).filter((r) => r.path === `/rest/v1/rpc/match_${table}`).at(-1);
    expect(match?.body).toMatchObject({ match_count: 1, filter: {} });
    expect(match?.body.query_embedding).toHaveLength(LOCAL_HASH_DIMS);
  });

  it("a record manager: unchanged chunks skipped (Supabase asked which ids it holds), removed ones deleted there", async () => {
    const cred = await supabaseKey();
    const table = `t_${marker()}`;
    const chatflowid = crypto.randomUUID();
    const recordManager = { cleanup: "full", sourceIdKey: "source" };
    expect(await upsertFlow(supabaseFlow({ credential: cred, table, recordManager }), { chatflowid })).toMatchObject({ numAdded: 3 });
    expect(await upsertFlow(supabaseFlow({ credential: cred, table, recordManager }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 3,
    });
    expect((await supabaseRequests(table)).some((r) => r.method === "GET" && r.path.includes("select=id&id=in."))).toBe(true);
    expect(await upsertFlow(supabaseFlow({ credential: cred, table, recordManager, text: LIBRARY }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 1,
      numDeleted: 2,
    });
    expect((await dump(table)).rows.map((r) => r.content)).toEqual([LIBRARY]);
    const deletes = (await supabaseRequests(table)).filter((r) => r.method === "DELETE");
    expect(deletes).toHaveLength(1);
    expect(deletes[0].path).toMatch(/\?id=in\.\([0-9a-f-]{36},[0-9a-f-]{36}\)$/);
  });

  it("supabaseMetadataFilter is the function's filter; supabaseRPCFilter becomes query-string filters (and wins); mmr", async () => {
    const cred = await supabaseKey();
    const table = `t_${marker()}`;
    await upsertFlow(supabaseFlow({ credential: cred, table, text: BAKERY, metadata: '{"kind":"shop","rank":3}' }));
    await upsertFlow(supabaseFlow({ credential: cred, table, text: LIBRARY, metadata: '{"kind":"public","rank":9}' }));
    const ask = async (extra: Record<string, unknown>) =>
      (
        await predict(supabaseFlow({ credential: cred, table, text: "", topK: "4", extra }), "bakery croissants bread")
      ).sourceDocuments?.map((d) => d.pageContent);
    expect(await ask({})).toEqual([BAKERY, LIBRARY]);
    expect(await ask({ supabaseMetadataFilter: '{"kind":"public"}' })).toEqual([LIBRARY]);
    const rpc = 'filter("metadata->rank::int", "gt", 5)\n.filter("metadata->>kind", "in", ["public","other"]);';
    expect(await ask({ supabaseMetadataFilter: { kind: "shop" }, supabaseRPCFilter: rpc })).toEqual([LIBRARY]);
    const last = (await supabaseRequests(table)).filter((r) => r.path.startsWith(`/rest/v1/rpc/match_${table}`)).at(-1);
    expect(decodeURIComponent(last?.path ?? "")).toBe(
      `/rest/v1/rpc/match_${table}?metadata->rank::int=gt.5&metadata->>kind=in.(public,other)&limit=4`,
    );
    expect(Object.keys(last?.body)).toEqual(["query_embedding"]);

    const diverse = await ask({ searchType: "mmr", fetchK: "2", lambda: "0.2", topK: "2" });
    expect(diverse).toHaveLength(2);
  });

  it("NUL characters (PDF text and metadata carry them) are left out of rows: PostgreSQL's text and jsonb refuse them", async () => {
    const table = `t_${marker()}`;
    const ctx = {
      env: env as never,
      db: db(),
      embeddings: new LocalHashEmbeddings({ dims: 8 }),
      namespace: `ns_${marker()}`,
      getCredential: async () => ({ supabaseApiKey: "sb-key-123456" }),
    };
    const store = buildVectorStore("supabase", { supabaseProjUrl: supabase(), tableName: table, credential: "c" }, ctx);
    const metadata = { source: "report.pdf", pdf: { info: { Title: "An\u0000nual" }, pages: ["i\u0000", "ii"] }, "odd\u0000key": 1 };
    await store.addVectors([[1, 0, 0, 0, 0, 0, 0, 1]], [new Document({ pageContent: "page\u0000one", metadata })]);
    const [row] = (await dump(table)).rows;
    expect(row.content).toBe("pageone");
    expect(row.metadata).toEqual({ source: "report.pdf", pdf: { info: { Title: "Annual" }, pages: ["i", "ii"] }, oddkey: 1 });
  });

  it("a table Flowise filled answers (LangChain's rows: uuid ids, nested metadata)", async () => {
    const cred = await supabaseKey("sb-flowise");
    const table = `t_${marker()}`;
    const emb = new LocalHashEmbeddings({});
    const [bakery, library] = await emb.embedDocuments([BAKERY, LIBRARY]);
    const rows = [
      { id: crypto.randomUUID(), content: BAKERY, metadata: { source: "bakery.txt" }, embedding: bakery },
      { id: crypto.randomUUID(), content: LIBRARY, metadata: { source: "library.txt" }, embedding: library },
    ];
    const put = await fetch(`${supabase()}/rest/v1/${table}`, {
      method: "POST",
      headers: { apikey: "sb-flowise", authorization: "Bearer sb-flowise", "content-type": "application/json" },
      body: JSON.stringify(rows),
    });
    expect(put.status).toBe(201);
    const result = await predict(
      supabaseFlow({ credential: cred, table, text: "" }),
      "Where can I borrow novels and atlases with a reader card?",
    );
    expect(result.sourceDocuments).toEqual([{ pageContent: LIBRARY, metadata: { source: "library.txt" } }]);
  });

  it("Flowise's documented bigserial table: integer ids made from the record manager's, rows of its sequence answer too", async () => {
    const cred = await supabaseKey("sb-serial");
    const table = `serial_${marker()}`;
    // A row Flowise wrote without a record manager: no id sent, the sequence numbered it.
    const [bakery] = await new LocalHashEmbeddings({}).embedDocuments([BAKERY]);
    const put = await fetch(`${supabase()}/rest/v1/${table}`, {
      method: "POST",
      headers: { apikey: "sb-serial", authorization: "Bearer sb-serial", "content-type": "application/json" },
      body: JSON.stringify([{ content: BAKERY, metadata: { source: "flowise" }, embedding: bakery }]),
    });
    expect(put.status).toBe(201);

    const chatflowid = crypto.randomUUID();
    const recordManager = { cleanup: "full", sourceIdKey: "source" };
    const flow = (text?: string) => supabaseFlow({ credential: cred, table, recordManager, ...(text ? { text } : {}) });
    expect(await upsertFlow(flow(), { chatflowid })).toMatchObject({ numAdded: 3, numSkipped: 0 });
    const ours = (await dump(table)).rows.filter((r) => r.metadata.source === "town");
    expect(ours).toHaveLength(3);
    for (const r of ours) {
      expect(typeof r.id).toBe("number");
      expect(r.id).toBeGreaterThanOrEqual(2 ** 52);
      expect(r.id).toBeLessThan(2 ** 53);
    }
    const insert = (await supabaseRequests(table)).find((r) => r.method === "POST");
    expect(insert?.body.every((row: { id: unknown }) => Number.isSafeInteger(row.id))).toBe(true);

    expect(await upsertFlow(flow(), { chatflowid })).toMatchObject({ numAdded: 0, numSkipped: 3 });
    expect(await upsertFlow(flow(LIBRARY), { chatflowid })).toMatchObject({ numAdded: 0, numSkipped: 1, numDeleted: 2 });
    const left = (await dump(table)).rows;
    expect(left.map((r) => [r.id, r.metadata.source])).toEqual([
      [1, "flowise"],
      [ours.find((r) => r.content === LIBRARY)?.id, "town"],
    ]);
    const deletes = (await supabaseRequests(table)).filter((r) => r.method === "DELETE");
    expect(deletes.map((d) => d.path)).toEqual([expect.stringMatching(/\?id=in\.\(\d{16},\d{16}\)$/)]);

    const { result } = await askNightTrains(supabaseFlow({ credential: cred, table, text: "", topK: "2" }), { chatflowid });
    expect(result.sourceDocuments?.map((d) => d.pageContent).sort()).toEqual([BAKERY, LIBRARY].sort());

    // int4 (`serial`) cannot hold ids that do not collide: refused before anything is written.
    const small = await err(upsertFlow(supabaseFlow({ credential: cred, table: `int4_${marker()}` })));
    expect(small).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^supabase: the int4_\w+ table needs an id column of type uuid, text or bigint/),
    });
  });

  it("Supabase down → 502 with its message, not answering → 504, a refused key → 502 naming the credential; never the key", async () => {
    const key = "sb-secret-key-987654";
    const cred = await supabaseKey(key);
    const down = await err(predict(supabaseFlow({ credential: cred, table: "down" }), "bakery"));
    expect(down).toMatchObject({ status: 502, message: "Supabase match failed (500): the database is having a bad day" });
    const slow = await err(predict(supabaseFlow({ credential: cred, table: "hang", extra: { timeout: 300 } }), "bakery"));
    expect(slow).toMatchObject({ status: 504, message: "Supabase match did not answer within 300 ms" });
    const wrong = await err(predict(supabaseFlow({ credential: await supabaseKey("not-a-key-123456"), table: "x" }), "bakery"));
    expect(wrong).toMatchObject({ status: 502, message: "Supabase match was refused (401): check the supabaseApi credential" });
    const missing = await err(predict(supabaseFlow({ credential: cred, table: "x", extra: { queryName: "find_docs" } }), "bakery"));
    expect(missing.status).toBe(400);
    expect(missing.message).toMatch(
      /^Supabase match: not found \(Could not find the function public\.find_docs.*; check the supabaseProjUrl/,
    );
    const noTable = await err(upsertFlow(supabaseFlow({ credential: cred, table: "missing_docs" })));
    expect(noTable.status).toBe(400);
    expect(noTable.message).toMatch(/^Supabase table check: not found \(Could not find the table 'public\.missing_docs'/);
    const unreachable = await err(
      predict(supabaseFlow({ credential: cred, table: "x", extra: { supabaseProjUrl: inject("closedUrl") } }), "bakery"),
    );
    expect(unreachable.status).toBe(502);
    expect(unreachable.message).toMatch(/^Supabase match failed: /);
    const table = `t_${marker()}`;
    await upsertFlow(supabaseFlow({ credential: cred, table, text: BAKERY }));
    const other = otherSizeFlow("supabase_0", "supabase", { credential: cred, supabaseProjUrl: supabase(), tableName: table });
    const refused = await err(upsertFlow(other));
    expect(refused).toMatchObject({ status: 502, message: "Supabase upsert failed (400): expected 256 dimensions, not 8" });
    for (const e of [down, slow, wrong, missing, noTable, unreachable, refused]) expect(e.message).not.toContain(key);
  });

  it("bad inputs are 400s naming the input", async () => {
    const cred = await supabaseKey();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ supabaseProjUrl: "" }, "supabase needs its supabaseProjUrl input (e.g. https://xyz.supabase.co)"],
      [{ supabaseProjUrl: "ftp://s.example" }, "supabase supabaseProjUrl must be an http(s) URL (e.g. https://xyz.supabase.co)"],
      [{ supabaseMetadataFilter: "[1]" }, "supabaseMetadataFilter must be a JSON object"],
      [
        { supabaseRPCFilter: 'order("id")' },
        "supabase supabaseRPCFilter: only filter(column, operator, value) is supported here, not order()",
      ],
      [{ supabaseRPCFilter: 'filter("a", "drop", 1)' }, 'supabase supabaseRPCFilter: operator "drop" is not allowed'],
      [{ supabaseRPCFilter: 'filter("a", "eq")' }, "supabase supabaseRPCFilter: filter takes a column, an operator and a value"],
      [
        { supabaseRPCFilter: "filter(process.exit())" },
        "supabase supabaseRPCFilter: a filter( … ) call is not closed or has an unreadable argument",
      ],
    ];
    for (const [extra, message] of cases) {
      const e = await err(predict(supabaseFlow({ credential: cred, table: "x", extra }), "bakery"));
      expect(e, message).toMatchObject({ status: 400, message });
    }
    const none = await err(predict(supabaseFlow({ credential: "", table: "x" }), "bakery"));
    expect(none).toMatchObject({
      status: 400,
      message: "supabase is not configured: connect a supabaseApi credential with supabaseApiKey",
    });
  });
});
