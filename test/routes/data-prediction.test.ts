// The SQL DB Chain and CSV Agent marketplace templates through the API, as a Flowise user moving over
// would use them: saved with POST /chatflows (no warning), answered by POST /prediction, streamed as
// SSE frames; a database that is down is a 502 (streaming: `error`, `end`) naming it.
import { env } from "cloudflare:workers";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import csvTemplate from "../engine/fixtures/csv-agent.json";
import sqlTemplate from "../engine/fixtures/sql-db-chain.json";
import { type Fixture, closedUrl, flowDataOf, marker, pointAtStandin } from "../engine/helpers";
import { call, expectError, json } from "../helpers";
import { framesOf, openAICredential, setVars } from "../security/helpers";

const sampleDb = () => (env as unknown as { SQL_SAMPLE: D1Database }).SQL_SAMPLE;
let restore: (() => void) | undefined;
afterEach(() => restore?.());

beforeAll(async () => {
  await sampleDb().batch([
    sampleDb().prepare("CREATE TABLE IF NOT EXISTS artists (id INTEGER PRIMARY KEY, name TEXT NOT NULL)"),
    sampleDb().prepare("INSERT OR REPLACE INTO artists VALUES (1, 'AC/DC'), (2, 'Accept')"),
  ]);
});
afterAll(() => sampleDb().prepare("DROP TABLE IF EXISTS artists").run()); // the storage is shared with later files

async function save(fixture: Fixture, node: string, inputs: Record<string, unknown>): Promise<string> {
  const cred = await openAICredential("sk-test-openai");
  const flowData = flowDataOf(fixture, (n) => {
    pointAtStandin(n.get("chatOpenAI_0")!, cred);
    Object.assign(n.get(node)!.data.inputs!, inputs);
  });
  const created = await json("POST", "/chatflows", { body: { name: "template", flowData } });
  expect(created).not.toHaveProperty("warning");
  return created.id;
}

describe("SQL DB Chain over the API", () => {
  it("answers from the D1 rows, and streams the answer as token frames", async () => {
    restore = setVars({ SQL_D1_BINDINGS: "SQL_SAMPLE" });
    const id = await save(sqlTemplate as unknown as Fixture, "sqlDatabaseChain_0", {});
    const question = `Artists? ${marker()} [sql: SELECT "name" FROM artists WHERE "name" LIKE 'A%' ORDER BY "id" :sql]`;
    const answer = await json("POST", `/prediction/${id}`, { body: { question } });
    expect(answer.text).toBe('rows: [{"name":"AC/DC"},{"name":"Accept"}]');
    const frames = await framesOf(await call("POST", `/prediction/${id}`, { body: { question, streaming: true } }));
    const tokens = frames
      .filter((f) => f.event === "token")
      .map((f) => f.data)
      .join("");
    expect(tokens).toBe(answer.text);
    expect(frames.at(-1)).toEqual({ event: "end", data: "[DONE]" });
  });

  it("a Postgres database that is down: 502 JSON, and `error` then `end` when streaming", async () => {
    restore = setVars({ OUTBOUND_ALLOW: "127.0.0.1" });
    const port = new URL(closedUrl()).port;
    const id = await save(sqlTemplate as unknown as Fixture, "sqlDatabaseChain_0", {
      database: "postgres",
      url: `postgres://u:pw-secret@127.0.0.1:${port}/shop`,
    });
    const body = await expectError(
      await call("POST", `/prediction/${id}`, { body: { question: `${marker()} [sql: SELECT 1 :sql]` } }),
      502,
    );
    expect(body.message).toContain(`PostgreSQL database at 127.0.0.1:${port}/shop cannot be reached`);
    expect(body.message).not.toContain("pw-secret");
    const frames = await framesOf(
      await call("POST", `/prediction/${id}`, { body: { question: `${marker()} [sql: SELECT 1 :sql]`, streaming: true } }),
    );
    expect(frames.map((f) => f.event)).toEqual(["error", "end"]);
    expect(frames[0].data).toContain("PostgreSQL database at 127.0.0.1");
  });
});

describe("CSV Agent over the API", () => {
  it("answers from the CSV through the sandbox", async () => {
    const csv = `data:text/csv;base64,${btoa("item,qty\napples,3\npears,5\n")},filename:stock.csv`;
    const id = await save(csvTemplate as unknown as Fixture, "csvAgent_0", { csvFile: csv });
    const answer = await json("POST", `/prediction/${id}`, {
      body: { question: `Total? ${marker()} [js: return df.reduce((s, r) => s + r.qty, 0) :js]` },
    });
    expect(answer.text).toBe("standalone: 8");
  });
});
