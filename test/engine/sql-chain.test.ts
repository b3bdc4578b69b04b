// sqlDatabaseChain on a D1 database bound to the worker (SQL_SAMPLE, a second D1 binding of the test
// config): Flowise's "SQL DB Chain" template as exported, the prompt contract (query, result,
// answer), the read-only rule, the binding allow-list, table lists, top-k, sample rows, row limit.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { flowDataWarning } from "../../src/services/chatflows";
import sqlTemplate from "./fixtures/sql-db-chain.json";
import {
  type Fixture,
  canStreamFlow,
  credential,
  flowDataOf,
  makeCtx,
  marker,
  pointAtStandin,
  recordingSink,
  requestsWith,
  runFlow,
  runtimeWith,
} from "./helpers";

const sampleDb = () => (env as unknown as { SQL_SAMPLE: D1Database }).SQL_SAMPLE;

beforeEach(async () => {
  // The sample database holds exactly these tables (other test files share the storage).
  const { results } = await sampleDb()
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT IN ('tracks', 'invoices')",
    )
    .all<{ name: string }>();
  if (results.length) await sampleDb().batch(results.map((t) => sampleDb().prepare(`DROP TABLE "${t.name}"`)));
  await sampleDb().batch([
    sampleDb().prepare(
      "CREATE TABLE IF NOT EXISTS tracks (id INTEGER PRIMARY KEY, name TEXT NOT NULL, composer TEXT, milliseconds INTEGER NOT NULL)",
    ),
    sampleDb().prepare("CREATE TABLE IF NOT EXISTS invoices (id INTEGER PRIMARY KEY, total REAL NOT NULL)"),
    sampleDb().prepare("DELETE FROM tracks"),
    sampleDb().prepare("DELETE FROM invoices"),
    sampleDb().prepare(
      "INSERT INTO tracks VALUES (1, 'For Those About To Rock', 'Angus Young', 343719), (2, 'Balls to the Wall', NULL, 342562), (3, 'Fast As a Shark', 'F. Baltes', 230619), (4, 'Restless and Wild', 'F. Baltes', 252051)",
    ),
    sampleDb().prepare("INSERT INTO invoices VALUES (1, 1.98), (2, 3.96)"),
  ]);
});

const sqlCtx = (question: string, vars: Record<string, string> = {}) =>
  makeCtx(question, { runtime: runtimeWith({ SQL_D1_BINDINGS: "SQL_SAMPLE", ...vars } as never) });

/** The template as exported, its model pointed at the stand-in, with `inputs` set on the chain. */
async function template(inputs: Record<string, unknown> = {}): Promise<string> {
  const cred = await credential("openAIApi", { openAIApiKey: "sk-test-openai" });
  return flowDataOf(sqlTemplate as unknown as Fixture, (n) => {
    pointAtStandin(n.get("chatOpenAI_0")!, cred);
    Object.assign(n.get("sqlDatabaseChain_0")!.data.inputs!, inputs);
  });
}

const countTracks = async () => (await sampleDb().prepare("SELECT count(*) AS n FROM tracks").first<{ n: number }>())!.n;

describe("SQL DB Chain template (sqlDatabaseChain on D1)", () => {
  it("saves without a warning", () => {
    expect(flowDataWarning(JSON.stringify({ nodes: sqlTemplate.nodes, edges: sqlTemplate.edges }))).toBeUndefined();
  });

  it("asks for a query with the tables and sample rows, runs it on D1, and answers from the rows", async () => {
    const m = marker();
    const question = `Which tracks did F. Baltes write? ${m} [sql: SELECT "name" FROM tracks WHERE "composer" = 'F. Baltes' ORDER BY "id" :sql]`;
    const result = await runFlow(await template(), sqlCtx(question));
    const [ask, answer, ...more] = await requestsWith(m);
    expect(more).toHaveLength(0);
    expect(ask.body.messages).toHaveLength(1);
    const prompt = ask.body.messages[0].content;
    expect(prompt.startsWith("You are a SQLite expert.")).toBe(true);
    expect(prompt).toContain("query for at most 5 results using the LIMIT clause as per SQLite");
    expect(prompt).toContain(
      'CREATE TABLE tracks (\nid INTEGER , name TEXT NOT NULL, composer TEXT , milliseconds INTEGER NOT NULL) \nSELECT * FROM "tracks" LIMIT 3;\n id name composer milliseconds\n 1 For Those About To Rock Angus Young 343719\n 2 Balls to the Wall null 342562\n 3 Fast As a Shark F. Baltes 230619\n',
    );
    expect(prompt).toContain(
      'Only use the following tables:\nCREATE TABLE invoices (\nid INTEGER , total REAL NOT NULL) \nSELECT * FROM "invoices" LIMIT 3;\n id total\n 1 1.98\n 2 3.96\nCREATE TABLE tracks',
    );
    expect(prompt.endsWith(`Question: ${question}\nSQLQuery:`)).toBe(true);
    expect((ask.body as { stop?: string[] }).stop).toEqual(["\nSQLResult:"]);
    const rows = '[{"name":"Fast As a Shark"},{"name":"Restless and Wild"}]';
    expect(
      answer.body.messages[0].content.endsWith(
        `Question: ${question}\nSQLQuery:SELECT "name" FROM tracks WHERE "composer" = 'F. Baltes' ORDER BY "id"\nSQLResult: ${rows}\nAnswer:`,
      ),
    ).toBe(true);
    expect(result).toEqual({ text: `rows: ${rows}`, memoryType: null });
  });

  it("streams the answer (not the query)", async () => {
    const flow = await template();
    expect(canStreamFlow(flow)).toBe(true);
    const m = marker();
    const rec = recordingSink();
    const result = await runFlow(flow, sqlCtx(`How many invoices? ${m} [sql: SELECT count(*) AS n FROM invoices :sql]`), rec.sink);
    expect(result.text).toBe('rows: [{"n":2}]');
    expect(rec.text()).toBe(result.text);
    const [ask, answer] = await requestsWith(m);
    expect(ask.body.stream).toBe(false);
    expect(answer.body.stream).toBe(true);
  });

  it.each([
    ["DELETE FROM tracks", "starts with DELETE"],
    ["WITH gone AS (SELECT 1) DELETE FROM tracks", "contains DELETE"],
    ["SELECT 1; DROP TABLE tracks", "Only one SQL statement"],
    ["UPDATE tracks SET name = 'x'", "starts with UPDATE"],
  ])("refuses %s: the model is told so, the table keeps its rows", async (statement, why) => {
    const m = marker();
    const result = await runFlow(await template(), sqlCtx(`Clean up ${m} [sql: ${statement} :sql]`));
    const [, answer] = await requestsWith(m);
    const line = /SQLResult: (.*)\nAnswer:$/.exec(answer.body.messages[0].content)![1];
    expect(JSON.parse(line)).toContain(why);
    expect(result.text).toBe(`rows: ${line}`);
    expect(await countTracks()).toBe(4);
    expect((await sampleDb().prepare("SELECT name FROM tracks WHERE id = 1").first<{ name: string }>())!.name).toBe(
      "For Those About To Rock",
    );
  });

  it("a query the database rejects is shown to the model as the error", async () => {
    const m = marker();
    const result = await runFlow(await template(), sqlCtx(`? ${m} [sql: SELECT nope FROM tracks :sql]`));
    expect(result.text).toMatch(/^rows: "Error: .*no such column: nope/);
  });

  it("allowWrites runs a write only on a binding SQL_D1_WRITE_BINDINGS lists", async () => {
    const write = `[sql: INSERT INTO invoices (id, total) VALUES (3, 9.99) :sql]`;
    await expect(runFlow(await template({ allowWrites: true }), sqlCtx(`Add ${marker()} ${write}`))).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("SQL_D1_WRITE_BINDINGS"),
    });
    await runFlow(await template({ allowWrites: true }), sqlCtx(`Add ${marker()} ${write}`, { SQL_D1_WRITE_BINDINGS: "SQL_SAMPLE" }));
    expect((await sampleDb().prepare("SELECT total FROM invoices WHERE id = 3").first<{ total: number }>())!.total).toBe(9.99);
  });

  it("only bindings SQL_D1_BINDINGS lists may be named (the app's own DB is not, by default)", async () => {
    const q = `? ${marker()} [sql: SELECT 1 :sql]`;
    await expect(runFlow(await template({ url: "DB" }), sqlCtx(q))).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("D1 binding DB is not one flows may query (SQL_D1_BINDINGS)"),
    });
    await expect(runFlow(await template(), makeCtx(q))).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("SQL_D1_BINDINGS"),
    });
    await expect(
      runFlow(await template({ url: "NOT_BOUND" }), sqlCtx(q, { SQL_D1_BINDINGS: "SQL_SAMPLE,NOT_BOUND" })),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("no D1 binding named NOT_BOUND"),
    });
    // Named explicitly (d1:// form) it is the same database.
    const ok = await runFlow(
      await template({ url: "d1://SQL_SAMPLE" }),
      sqlCtx(`? ${marker()} [sql: SELECT count(*) AS n FROM tracks :sql]`),
    );
    expect(ok.text).toBe('rows: [{"n":4}]');
  });

  it("include and ignore lists choose the tables the prompt shows; an unknown table is a 400", async () => {
    const m = marker();
    await runFlow(await template({ ignoreTables: "invoices" }), sqlCtx(`${m} [sql: SELECT 1 AS one :sql]`));
    const [ignoring] = await requestsWith(m);
    expect(ignoring.body.messages[0].content).toContain("CREATE TABLE tracks");
    expect(ignoring.body.messages[0].content).not.toContain("invoices");
    const m2 = marker();
    await runFlow(await template({ includesTables: " invoices " }), sqlCtx(`${m2} [sql: SELECT 1 AS one :sql]`));
    const [including] = await requestsWith(m2);
    expect(including.body.messages[0].content).toContain("CREATE TABLE invoices");
    expect(including.body.messages[0].content).not.toContain("tracks");
    await expect(runFlow(await template({ includesTables: "albums" }), sqlCtx(`${marker()} [sql: SELECT 1 :sql]`))).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("albums"),
    });
  });

  it("topK, sample rows and a custom prompt are the node's inputs", async () => {
    const m = marker();
    await runFlow(await template({ topK: "2", sampleRowsInTableInfo: 1 }), sqlCtx(`${m} [sql: SELECT 1 AS one :sql]`));
    const [ask] = await requestsWith(m);
    expect(ask.body.messages[0].content).toContain("query for at most 2 results");
    expect(ask.body.messages[0].content).toContain(
      'SELECT * FROM "tracks" LIMIT 1;\n id name composer milliseconds\n 1 For Those About To Rock Angus Young 343719\n\n\nQuestion:',
    );
    const m2 = marker();
    const custom = "Dialect {dialect}. Tables:\n{table_info}\nQ: {input}";
    await runFlow(await template({ customPrompt: custom, sampleRowsInTableInfo: 0 }), sqlCtx(`${m2} [sql: SELECT 1 AS one :sql]`));
    const [ask2, answer2] = await requestsWith(m2);
    expect(ask2.body.messages[0].content).toBe(
      `Dialect sqlite. Tables:\nCREATE TABLE invoices (\nid INTEGER , total REAL NOT NULL) \nSELECT * FROM "invoices" LIMIT 0;\n id total\nCREATE TABLE tracks (\nid INTEGER , name TEXT NOT NULL, composer TEXT , milliseconds INTEGER NOT NULL) \nSELECT * FROM "tracks" LIMIT 0;\n id name composer milliseconds\n\nQ: ${m2} [sql: SELECT 1 AS one :sql]\nSQLQuery:`,
    );
    expect(answer2.body.messages[0].content.endsWith('SQLQuery:SELECT 1 AS one\nSQLResult: [{"one":1}]\nAnswer:')).toBe(true);
  });

  it("reads at most SQL_MAX_ROWS rows and says the result was cut", async () => {
    const result = await runFlow(
      await template(),
      sqlCtx(`${marker()} [sql: SELECT "id" FROM tracks ORDER BY "id" :sql]`, { SQL_MAX_ROWS: "2" }),
    );
    expect(result.text).toBe('rows: [{"id":1},{"id":2}] (cut: the statement returned more than 2 rows)');
  });

  it("a result longer than the prompt's share is cut and says so", async () => {
    const result = await runFlow(await template(), sqlCtx(`${marker()} [sql: SELECT hex(randomblob(20000)) AS s :sql]`));
    expect(result.text.startsWith('rows: [{"s":"')).toBe(true);
    expect(result.text.endsWith(" (cut: the result is longer than 32000 characters)")).toBe(true);
    expect(result.text.length).toBeLessThan(32_100);
  });

  it("a query ending in a line comment still runs (the row bound is not commented out)", async () => {
    const result = await runFlow(
      await template(),
      sqlCtx(`${marker()} [sql: SELECT count(*) AS n FROM tracks -- every track :sql]`, { SQL_MAX_ROWS: "1" }),
    );
    expect(result.text).toBe('rows: [{"n":4}]');
  });

  it("MSSQL is a 400 saying what is supported", async () => {
    await expect(
      runFlow(await template({ database: "mssql", url: "mssql://x" }), sqlCtx(`${marker()} [sql: SELECT 1 :sql]`)),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('database "mssql" is not supported here (supported: sqlite — a D1 binding —, postgres, mysql)'),
    });
  });
});
