// The singlestore vector store against the MySQL stand-in (test/standin/mysql.mjs: the wire protocol
// with both auth plugins verified; SingleStore's JSON_ARRAY_PACK, DOT_PRODUCT and JSON_EXTRACT_JSON
// as functions of its PGlite backend), over our MySQL client on the Workers TCP socket API: a chatflow
// upserted through POST /vector/upsert and asked through POST /prediction (LangChain's table made at
// the first write), a caller's metadata filter, replacing, finding and deleting our rows by id, a
// table Flowise filled, and the failures (a wrong password, a private host, bad inputs).
import { env } from "cloudflare:workers";
import { Document } from "@langchain/core/documents";
import { describe, expect, inject, it } from "vitest";
import { LOCAL_HASH_DIMS, LocalHashEmbeddings } from "../../src/providers/embeddings/local-hash";
import { buildVectorStore } from "../../src/providers/vectorstores/registry";
import { json } from "../helpers";
import { credential, db, marker, requestsWith } from "./helpers";
import { err, predict, storeFlow } from "./hosted-store-flows";
import { BAKERY, LIBRARY, STATION } from "./retrieval-flows";

const PASSWORD = "mysql-standin-password";
const host = () => `127.0.0.1:${inject("mysqlPort")}`;
const standin = () => inject("mysqlUrl");

interface Connection {
  user: string;
  database: string;
  plugin: string;
  auth: string;
  statements: string[];
}
/** The stand-in's connections whose statements name `table`. */
const connectionsOn = async (table: string) =>
  ((await (await fetch(`${standin()}/requests`)).json()) as Connection[]).filter((c) => c.statements.some((s) => s.includes(table)));
const statementsOn = async (table: string) => (await connectionsOn(table)).flatMap((c) => c.statements);
const dump = async (table: string) =>
  (
    (await (await fetch(`${standin()}/dump/vectors/${table}`)).json()) as {
      rows: Array<{ id: number; content: string; vector: number[]; metadata: any }>;
    }
  ).rows;
const seed = async (sql: string) => {
  const res = await fetch(`${standin()}/sql`, { method: "POST", body: JSON.stringify({ database: "vectors", sql }) });
  expect(res.status, await res.clone().text()).toBe(200);
};
const s2Credential = (password = PASSWORD) => credential("singleStoreApi", { user: "flowise", password });

function s2Flow(o: { credential: string; table: string; text?: string; topK?: string; extra?: Record<string, unknown> }) {
  return storeFlow({
    id: "singlestore_0",
    node: "singlestore",
    credential: o.credential,
    text: o.text,
    inputs: { host: host(), database: "vectors", tableName: o.table, topK: o.topK ?? "1", ...o.extra },
  });
}

describe("singlestore", () => {
  it("POST /vector/upsert makes LangChain's table and writes the rows; POST /prediction answers from the stored text", async () => {
    const cred = await s2Credential();
    const table = `t_${marker()}`;
    const id = (await json("POST", "/chatflows", { body: { name: "singlestore", flowData: s2Flow({ credential: cred, table }) } })).id;
    expect(await json("POST", `/vector/upsert/${id}`, { body: {} })).toMatchObject({ numAdded: 3 });

    const connections = await connectionsOn(table);
    for (const c of connections) expect(c).toMatchObject({ user: "flowise", database: "vectors", plugin: "mysql_native_password" });
    const statements = connections.flatMap((c) => c.statements);
    expect(statements).toContain(
      `CREATE TABLE IF NOT EXISTS \`${table}\` (\`id\` BIGINT AUTO_INCREMENT PRIMARY KEY, ` +
        "`content` LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci, `vector` BLOB, `metadata` JSON)",
    );
    const insert = statements.find((s) => s.startsWith(`INSERT INTO \`${table}\``));
    expect(insert).toMatch(/^INSERT INTO `t_\w+` \(`id`, `content`, `vector`, `metadata`\) VALUES \(\d+, 'The /);
    expect(insert).toContain(", JSON_ARRAY_PACK('[");
    expect(insert).toContain("ON DUPLICATE KEY UPDATE `content` = VALUES(`content`)");
    const rows = await dump(table);
    expect(rows.map((r) => r.content).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    expect(rows[0].vector).toHaveLength(LOCAL_HASH_DIMS);
    expect(rows[0].metadata).toMatchObject({ source: "town", loc: { lines: { from: expect.any(Number) } } });

    const m = marker();
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `Which platform do night trains leave from? ${m}` } });
    expect(answer.sourceDocuments).toEqual([{ pageContent: STATION, metadata: expect.objectContaining({ source: "town" }) }]);
    const [sent] = (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions"));
    expect(JSON.stringify(sent.body.messages)).toContain("Night trains depart from platform nine");
    const search = (await statementsOn(table)).filter((s) => s.startsWith("SELECT `content`")).at(-1);
    expect(search).toMatch(
      new RegExp(
        `^SELECT \`content\` AS content, \`metadata\` AS metadata, DOT_PRODUCT\\(\`vector\`, JSON_ARRAY_PACK\\('\\[[-0-9.e,]+\\]'\\)\\) AS __score FROM \`${table}\` ORDER BY __score DESC LIMIT 1$`,
      ),
    );
  });

  it("a caller's metadata filter (LangChain's JSON_EXTRACT_JSON, nested keys); rows replaced, found and deleted by id; scores", async () => {
    const table = `t_${marker()}`;
    const ctx = {
      env: env as never,
      db: db(),
      embeddings: new LocalHashEmbeddings({ dims: 8 }),
      namespace: `ns_${marker()}`,
      getCredential: async () => ({ user: "flowise", password: PASSWORD }),
    };
    const store = buildVectorStore("singlestore", { credential: "c", host: host(), database: "vectors", tableName: table }, ctx);
    const v = [1, 0, 0, 0, 0, 0, 0, 0];
    const w = [0.5, 0.5, 0, 0, 0, 0, 0, 0];
    await store.addVectors(
      [v, v],
      [
        new Document({ pageContent: "first", metadata: { kind: "shop", loc: { floor: 1 } } }),
        new Document({ pageContent: "second", metadata: { kind: "park" } }),
      ],
      { ids: ["id-1", "id-2"] },
    );
    await store.addVectors([w], [new Document({ pageContent: "first, again", metadata: { kind: "shop", loc: { floor: 2 } } })], {
      ids: ["id-1"],
    });
    expect((await dump(table)).map((r) => r.content).sort()).toEqual(["first, again", "second"]);

    const all = await store.similaritySearchVectorWithScore(v, 4);
    expect(all.map(([d, s]) => [d.pageContent, s])).toEqual([
      ["second", 1],
      ["first, again", 0.5],
    ]);
    const shops = await store.similaritySearchVectorWithScore(v, 4, { kind: "shop" });
    expect(shops.map(([d]) => d.pageContent)).toEqual(["first, again"]);
    expect((await store.similaritySearchVectorWithScore(v, 4, { loc: { floor: 1 } })).map(([d]) => d.pageContent)).toEqual([]);
    expect((await store.similaritySearchVectorWithScore(v, 4, { loc: { floor: 2 } })).map(([d]) => d.pageContent)).toEqual([
      "first, again",
    ]);
    const filtered = (await statementsOn(table))
      .filter((s) => s.includes("JSON_EXTRACT_JSON"))
      .map((s) => s.replace(/'\[[^\]]*\]'/, "'[…]'"));
    expect(filtered).toContain(
      `SELECT \`content\` AS content, \`metadata\` AS metadata, DOT_PRODUCT(\`vector\`, JSON_ARRAY_PACK('[…]')) AS __score FROM \`${table}\` ` +
        "WHERE JSON_EXTRACT_JSON(`metadata`, 'loc', 'floor') = '2' ORDER BY __score DESC LIMIT 4",
    );
    expect(filtered.some((s) => s.includes("WHERE JSON_EXTRACT_JSON(`metadata`, 'kind') = '\"shop\"'"))).toBe(true);

    // Text that would break naive quoting arrives unchanged (content and metadata; no NUL: the stand-in keeps text in Postgres).
    const nasty = "it's a \\ back'slash \"quote\" \n\t newline ';-- DROP TABLE x; ☕";
    await store.addVectors([[0, 0, 1, 0, 0, 0, 0, 0]], [new Document({ pageContent: nasty, metadata: { note: nasty } })], {
      ids: ["id-3"],
    });
    const [[back]] = await store.similaritySearchVectorWithScore([0, 0, 1, 0, 0, 0, 0, 0], 1, { note: nasty });
    expect(back).toMatchObject({ pageContent: nasty, metadata: { note: nasty } });
    await store.delete({ ids: ["id-3"] });
    expect([...(await store.has(["id-1", "id-2", "id-3"]))].sort()).toEqual(["id-1", "id-2"]);
    await store.delete({ ids: ["id-2"] });
    expect((await dump(table)).map((r) => r.content)).toEqual(["first, again"]);
    const deleteOne = expect.stringMatching(new RegExp(`^DELETE FROM \`${table}\` WHERE \`id\` IN \\(\\d+\\)$`));
    expect((await statementsOn(table)).filter((s) => s.startsWith("DELETE"))).toEqual([deleteOne, deleteOne]); // id-3, then id-2
  });

  it("a table Flowise filled (auto ids, LangChain's columns) answers; named columns are used", async () => {
    const cred = await s2Credential();
    const table = `t_${marker()}`;
    const [bakery, library] = await new LocalHashEmbeddings({}).embedDocuments([BAKERY, LIBRARY]);
    await seed(
      `CREATE TABLE IF NOT EXISTS ${table} (id BIGINT AUTO_INCREMENT PRIMARY KEY, body LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci, emb BLOB, meta JSON)`,
    );
    await seed(
      `INSERT INTO ${table}(body, emb, meta) VALUES ('${BAKERY.replace(/'/g, "\\'")}', JSON_ARRAY_PACK('[${bakery}]'), '{"source":"bakery.txt"}')`,
    );
    await seed(`INSERT INTO ${table}(body, emb, meta) VALUES ('${LIBRARY}', JSON_ARRAY_PACK('[${library}]'), '{"source":"library.txt"}')`);
    const columns = { contentColumnName: "body", vectorColumnName: "emb", metadataColumnName: "meta" };
    const result = await predict(
      s2Flow({ credential: cred, table, text: "", topK: "2", extra: columns }),
      "Where can I borrow novels and atlases?",
    );
    expect(result.sourceDocuments).toEqual([
      { pageContent: LIBRARY, metadata: { source: "library.txt" } },
      { pageContent: BAKERY, metadata: { source: "bakery.txt" } },
    ]);
  });

  it("a wrong password is a 502 with the server's message, never the password; a private host and bad inputs are 400s", async () => {
    const wrong = await err(predict(s2Flow({ credential: await s2Credential("hunter2-not-it"), table: "x", text: "" }), "bakery"));
    expect(wrong.status).toBe(502);
    expect(wrong.message).toMatch(
      /^SingleStore at 127\.0\.0\.1:\d+\/vectors refused the connection: Access denied for user 'flowise'@'127\.0\.0\.1' \(using password: YES\) \(1045\)$/,
    );
    expect(wrong.message).not.toContain("hunter2-not-it");
    const cred = await s2Credential();
    const cases: Array<[Record<string, unknown>, string | RegExp]> = [
      [{ host: "10.1.2.3" }, /^singlestore host refused by the outbound policy: 10\.1\.2\.3 is a private address/],
      [{ host: "" }, "singlestore needs its host input (the SingleStore endpoint, e.g. svc-….svc.singlestore.com)"],
      [{ database: "" }, "singlestore needs its database input (the database holding the table)"],
      [{ tableName: "docs; DROP TABLE x" }, "singlestore tableName may hold only letters, digits, _ and $ (at most 64)"],
      [{ vectorColumnName: "v`" }, "singlestore vectorColumnName may hold only letters, digits, _ and $ (at most 64)"],
    ];
    for (const [extra, message] of cases) {
      const e = await err(predict(s2Flow({ credential: cred, table: "x", text: "", extra }), "bakery"));
      expect(e.status, String(message)).toBe(400);
      if (typeof message === "string") expect(e.message).toBe(message);
      else expect(e.message).toMatch(message);
    }
    const none = await err(predict(s2Flow({ credential: "", table: "x", text: "" }), "bakery"));
    expect(none).toMatchObject({
      status: 400,
      message: "singlestore is not configured: connect a singleStoreApi credential with user and password",
    });
    const tls = await err(predict(s2Flow({ credential: cred, table: "x", text: "", extra: { host: `${host()}?ssl=true` } }), "bakery"));
    expect(tls).toMatchObject({ status: 502, message: expect.stringContaining("the server does not offer TLS") });
  });
});
