// The postgres vector store against a real Postgres with pgvector (PGlite behind a password-checking
// proxy, test/standin/pgvector.mjs), over the Workers TCP socket API: upsert and prediction in a
// chatflow (Flowise's table: uuid id, "pageContent", metadata jsonb, embedding vector; made with the
// extension at the first write), the record manager (unchanged rows skipped, asked of Postgres;
// removed ones deleted there), pgMetadataFilter, distanceStrategy, a table Flowise filled, and a
// Postgres that refuses the password, is unreachable, hangs or fails the query.
import { describe, expect, inject, it } from "vitest";
import { env } from "cloudflare:workers";
import { Document } from "@langchain/core/documents";
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
  upsertFlow,
  type TownFlowOptions,
} from "./hosted-store-flows";
import { BAKERY, LIBRARY, STATION } from "./retrieval-flows";

const PASSWORD = "pgv-standin-password";
const pg = () => inject("pgvectorUrl");
const where = () => ({ host: "127.0.0.1", port: inject("pgvectorPort"), database: "postgres" });

interface PgConnection {
  user: string;
  database: string;
  password: string;
  statements: string[];
}
/** The connections whose statements name `table`. */
const connectionsOn = async (table: string) =>
  ((await (await fetch(`${pg()}/requests`)).json()) as PgConnection[]).filter((c) => c.statements.some((s) => s.includes(`"${table}"`)));
const statementsOn = async (table: string) => (await connectionsOn(table)).flatMap((c) => c.statements);
const dump = async (table: string) =>
  (await (await fetch(`${pg()}/dump/${table}`)).json()) as {
    rows: Array<{ id: string; pageContent: string; metadata: Record<string, any>; embedding: number[] }>;
  };
const sql = async (text: string, params: unknown[] = []) => {
  const res = await fetch(`${pg()}/sql`, { method: "POST", body: JSON.stringify({ sql: text, params }) });
  expect(res.status).toBe(200);
};
const pgCredential = (password = PASSWORD) => credential("PostgresApi", { user: "flowise", password });

/** The town flow with a postgres node on the stand-in. */
function pgFlow({ table, topK, extra, ...rest }: TownFlowOptions & { credential: string; table: string }) {
  return storeFlow({ id: "postgres_0", node: "postgres", inputs: { ...where(), tableName: table, topK: topK ?? "1", ...extra }, ...rest });
}

describe("postgres (pgvector)", () => {
  it("makes Flowise's table, upserts its rows with the credential's user and password, answers by cosine distance", async () => {
    const cred = await pgCredential();
    const table = `t_${marker()}`;
    const flowData = pgFlow({ credential: cred, table });
    const chatflowid = crypto.randomUUID();
    expect(await upsertFlow(flowData, { chatflowid })).toMatchObject({ numAdded: 3, numSkipped: 0 });

    const connections = await connectionsOn(table);
    for (const c of connections) expect(c).toMatchObject({ user: "flowise", database: "postgres", password: PASSWORD });
    const statements = connections.flatMap((c) => c.statements);
    expect(statements).toContain("CREATE EXTENSION IF NOT EXISTS vector");
    expect(statements).toContain(
      `CREATE TABLE IF NOT EXISTS "${table}" ("id" uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY, ` +
        `"pageContent" text, metadata jsonb, embedding vector)`,
    );
    expect(statements.some((s) => s.startsWith(`INSERT INTO "${table}" ("id", "pageContent", metadata, embedding) VALUES`))).toBe(true);
    const stored = await dump(table);
    expect(stored.rows.map((r) => r.pageContent).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    expect(stored.rows[0].metadata).toMatchObject({ source: "town", loc: { lines: { from: expect.any(Number) } } });
    expect(stored.rows[0].embedding).toHaveLength(LOCAL_HASH_DIMS);
    expect(await bookkeepingTexts("postgres", `${chatflowid}_postgres_0`)).toEqual(["", "", ""]);

    const { result, prompt } = await askNightTrains(flowData, { chatflowid });
    expect(result.sourceDocuments).toEqual([{ pageContent: STATION, metadata: expect.objectContaining({ source: "town" }) }]);
    expect(prompt).toContain(STATION);
    const search = (await statementsOn(table)).filter((s) => s.startsWith("SELECT")).at(-1);
    expect(search).toContain(`embedding <=> $1 AS "_distance"`);
    expect(search).toContain(`WHERE metadata @> $2 AND NOT (metadata ? 'flowise_chatId') ORDER BY "_distance" ASC LIMIT $3`);
  });

  it("a record manager: unchanged rows skipped (Postgres asked which ids it holds), removed ones deleted there", async () => {
    const cred = await pgCredential();
    const table = `t_${marker()}`;
    const chatflowid = crypto.randomUUID();
    const recordManager = { cleanup: "full", sourceIdKey: "source" };
    expect(await upsertFlow(pgFlow({ credential: cred, table, recordManager }), { chatflowid })).toMatchObject({ numAdded: 3 });
    expect(await upsertFlow(pgFlow({ credential: cred, table, recordManager }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 3,
    });
    expect((await statementsOn(table)).some((s) => s.startsWith(`SELECT "id"::text AS id FROM "${table}" WHERE "id" IN`))).toBe(true);
    expect(await upsertFlow(pgFlow({ credential: cred, table, recordManager, text: LIBRARY }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 1,
      numDeleted: 2,
    });
    expect((await dump(table)).rows.map((r) => r.pageContent)).toEqual([LIBRARY]);
    expect((await statementsOn(table)).filter((s) => s.startsWith("DELETE"))).toEqual([`DELETE FROM "${table}" WHERE "id" IN ($1, $2)`]);
  });

  it("pgMetadataFilter keeps rows whose metadata contains it; distanceStrategy picks the operator; names as Flowise cleans them", async () => {
    const cred = await pgCredential();
    const m = marker();
    const table = `t_${m}`;
    const spaced = ` T ${m} `; // Flowise: trimmed, lower case, blanks as underscores → t_<m>
    await upsertFlow(pgFlow({ credential: cred, table: spaced, text: BAKERY, metadata: '{"kind":"shop","rank":3}' }));
    await upsertFlow(pgFlow({ credential: cred, table, text: LIBRARY, metadata: '{"kind":"public","rank":9}' }));
    expect((await dump(table)).rows).toHaveLength(2);
    const ask = async (extra: Record<string, unknown>) =>
      (await predict(pgFlow({ credential: cred, table, text: "", topK: "4", extra }), "bakery croissants bread")).sourceDocuments?.map(
        (d) => d.pageContent,
      );
    expect(await ask({})).toEqual([BAKERY, LIBRARY]);
    expect(await ask({ pgMetadataFilter: '{"kind":"public"}' })).toEqual([LIBRARY]);
    expect(await ask({ pgMetadataFilter: { rank: 3 } })).toEqual([BAKERY]);
    expect(await ask({ distanceStrategy: "innerProduct" })).toEqual([BAKERY, LIBRARY]);
    expect(await ask({ distanceStrategy: "euclidean", searchType: "mmr", fetchK: "2", topK: "1" })).toEqual([BAKERY]);
    const searches = (await statementsOn(table)).filter((s) => s.startsWith("SELECT") && s.includes("_distance"));
    expect(searches.some((s) => s.includes("embedding <#> $1"))).toBe(true);
    expect(searches.some((s) => s.includes("embedding <-> $1") && s.includes("embedding::text AS embedding"))).toBe(true);
  });

  it("a table Flowise filled answers (its rows: uuid ids, nested metadata; a chat's uploads left out)", async () => {
    const cred = await pgCredential();
    const table = `t_${marker()}`;
    const emb = new LocalHashEmbeddings({});
    const [bakery, library] = await emb.embedDocuments([BAKERY, LIBRARY]);
    await sql("CREATE EXTENSION IF NOT EXISTS vector");
    await sql(
      `CREATE TABLE "${table}" ("id" uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY, "pageContent" text, metadata jsonb, embedding vector)`,
    );
    const insert = `INSERT INTO "${table}" ("pageContent", metadata, embedding) VALUES ($1, $2, $3)`;
    await sql(insert, [BAKERY, { source: "bakery.txt", loc: { lines: { from: 1, to: 3 } } }, JSON.stringify(bakery)]);
    await sql(insert, [LIBRARY, { source: "library.txt" }, JSON.stringify(library)]);
    await sql(insert, [LIBRARY, { source: "upload.txt", flowise_chatId: "c1" }, JSON.stringify(library)]);
    const result = await predict(pgFlow({ credential: cred, table, text: "", topK: "2" }), "Where can I borrow novels and atlases?");
    expect(result.sourceDocuments).toEqual([
      { pageContent: LIBRARY, metadata: { source: "library.txt" } },
      { pageContent: BAKERY, metadata: { source: "bakery.txt", loc: { lines: { from: 1, to: 3 } } } },
    ]);
  });

  it("NUL characters and lone surrogates in metadata (PDF metadata has them) are written without them: jsonb refuses both", async () => {
    const cred = await pgCredential();
    const table = `t_${marker()}`;
    const metadata = JSON.stringify({
      source: "town",
      pdf: { info: { Title: "Q3\u0000 report", Producer: "cut \ud83d" }, totalPages: "12" },
      "k\u0000ey": ["a\u0000", "\udc00b"],
    });
    expect(await upsertFlow(pgFlow({ credential: cred, table, text: BAKERY, metadata }))).toMatchObject({ numAdded: 1 });
    const [row] = (await dump(table)).rows;
    expect(row.metadata).toMatchObject({
      source: "town",
      pdf: { info: { Title: "Q3 report", Producer: "cut \ufffd" }, totalPages: "12" },
      key: ["a", "\ufffdb"],
    });
    const result = await predict(
      pgFlow({ credential: cred, table, text: "", extra: { pgMetadataFilter: { pdf: { totalPages: "12" } } } }),
      "bread",
    );
    expect(result.sourceDocuments?.map((d) => d.pageContent)).toEqual([BAKERY]);
  });

  it("an INSERT binds at most 65,535 parameters: a batchSize over 16,383 rows (4 a row) is split", async () => {
    const table = `t_${marker()}`;
    const store = buildVectorStore(
      "postgres",
      { credential: "c", ...where(), tableName: table, batchSize: 20_000 },
      {
        env: env as never,
        db: db(),
        embeddings: new LocalHashEmbeddings({ dims: 2 }),
        namespace: `ns_${marker()}`,
        getCredential: async () => ({ user: "flowise", password: PASSWORD }),
      },
    );
    const n = 16_400;
    await store.addVectors(
      Array.from({ length: n }, (_, i) => [1, i]),
      Array.from({ length: n }, (_, i) => new Document({ pageContent: `row ${i}` })),
    );
    expect((await dump(table)).rows).toHaveLength(n);
    const inserts = (await statementsOn(table)).filter((s) => s.startsWith("INSERT"));
    expect(inserts.map((s) => s.match(/\(\$\d+, \$\d+, \$\d+, \$\d+\)/g)?.length)).toEqual([16_383, 17]);
  }, 60_000);

  it("an INSERT holds about 8 MB at most: long chunks go in more statements than batchSize alone would make", async () => {
    const table = `t_${marker()}`;
    const store = buildVectorStore(
      "postgres",
      { credential: "c", ...where(), tableName: table },
      {
        env: env as never,
        db: db(),
        embeddings: new LocalHashEmbeddings({ dims: 2 }),
        namespace: `ns_${marker()}`,
        getCredential: async () => ({ user: "flowise", password: PASSWORD }),
      },
    );
    // 300 chunks of 30,000 characters (9 MB), under the default batchSize of 500.
    const n = 300;
    await store.addVectors(
      Array.from({ length: n }, (_, i) => [1, i]),
      Array.from({ length: n }, (_, i) => new Document({ pageContent: `${i} `.padEnd(30_000, "x") })),
    );
    expect((await dump(table)).rows).toHaveLength(n);
    const inserts = (await statementsOn(table)).filter((s) => s.startsWith("INSERT"));
    const rows = inserts.map((s) => s.match(/\(\$\d+, \$\d+, \$\d+, \$\d+\)/g)?.length ?? 0);
    expect(rows.length).toBe(2);
    expect(rows.reduce((a, b) => a + b, 0)).toBe(n);
  }, 60_000);

  it("a refused password → 502 with Postgres's message, unreachable → 502, silent → 504, a failing query → 502; never the password", async () => {
    const wrong = await err(predict(pgFlow({ credential: await pgCredential("not-the-password-42"), table: "x" }), "bakery"));
    expect(wrong.status).toBe(502);
    expect(wrong.message).toMatch(
      /^Postgres at 127\.0\.0\.1:\d+\/postgres search failed: password authentication failed for user "flowise"/,
    );
    const cred = await pgCredential();
    const closed = new URL(inject("closedUrl"));
    const unreachable = await err(predict(pgFlow({ credential: cred, table: "x", extra: { port: closed.port } }), "bakery"));
    expect(unreachable.status).toBe(502);
    expect(unreachable.message).toMatch(/^Postgres at 127\.0\.0\.1:\d+\/postgres search failed: cannot be reached/);
    const silentPort = new URL(inject("silentPostgresUrl")).port;
    const silent = await err(predict(pgFlow({ credential: cred, table: "x", extra: { port: silentPort, timeout: 1500 } }), "bakery"));
    expect(silent).toMatchObject({
      status: 504,
      message: `Postgres at 127.0.0.1:${silentPort}/postgres search did not answer within 1500 ms`,
    });

    const table = `t_${marker()}`;
    await upsertFlow(pgFlow({ credential: cred, table, text: BAKERY }));
    const other = otherSizeFlow("postgres_0", "postgres", { credential: cred, ...where(), tableName: table });
    expect(await upsertFlow(other)).toMatchObject({ numAdded: 1 }); // a `vector` column takes any size…
    const mixed = await err(predict(pgFlow({ credential: cred, table, text: "" }), "bakery"));
    expect(mixed.status).toBe(502); // …but no distance between two sizes
    expect(mixed.message).toMatch(/search failed: different vector dimensions/);
    for (const e of [wrong, unreachable, silent, mixed]) {
      expect(e.message).not.toContain(PASSWORD);
      expect(e.message).not.toContain("not-the-password-42");
    }
  }, 20_000);

  it("bad inputs are 400s naming the input; a private host is refused", async () => {
    const cred = await pgCredential();
    const cases: Array<[Record<string, unknown>, string | RegExp]> = [
      [{ host: "" }, "postgres needs its host input (the Postgres server's host name, e.g. db.example.com)"],
      [{ database: "" }, "postgres needs its database input (the name of the database holding the table)"],
      [{ port: "99999" }, "postgres port must be a whole number from 1 to 65535"],
      [{ tableName: "docs; DROP TABLE x" }, "postgres tableName may hold only letters, digits and underscores"],
      [{ distanceStrategy: "manhattan" }, "postgres distanceStrategy must be one of cosine, innerProduct, euclidean"],
      [{ pgMetadataFilter: "[1]" }, "pgMetadataFilter must be a JSON object"],
      [{ host: "10.1.2.3" }, /^postgres host refused by the outbound policy: 10\.1\.2\.3 is a private address/],
    ];
    for (const [extra, message] of cases) {
      const e = await err(predict(pgFlow({ credential: cred, table: "x", extra }), "bakery"));
      expect(e.status, String(message)).toBe(400);
      if (typeof message === "string") expect(e.message).toBe(message);
      else expect(e.message).toMatch(message);
    }
    const none = await err(predict(pgFlow({ credential: "", table: "x" }), "bakery"));
    expect(none).toMatchObject({
      status: 400,
      message: "postgres is not configured: connect a PostgresApi credential with user and password",
    });
  });
});
