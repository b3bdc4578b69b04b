// sqlDatabaseChain on MySQL: the SQL DB Chain template with database "mysql", against the MySQL
// stand-in (test/standin/mysql.mjs: the wire protocol, both auth plugins verified, data in PGlite)
// reached over the Workers TCP socket API by our own client (src/providers/sql/mysql/). The
// connection URL is under the outbound policy; reads run in a READ ONLY transaction after the
// statement check. Each test's connections are found by the marker its statements carry.
import { describe, expect, inject, it } from "vitest";
import sqlTemplate from "./fixtures/sql-db-chain.json";
import {
  type Fixture,
  closedUrl,
  credential,
  flowDataOf,
  makeCtx,
  marker,
  pointAtStandin,
  requestsWith,
  runFlow,
  runtimeWith,
} from "./helpers";

const NATIVE_PASSWORD = "mysql-standin-password";
const SHA2_PASSWORD = "sha2-standin-password";
const mysqlUrl = (user = "flowise", password = NATIVE_PASSWORD, db = "shop") =>
  `mysql://${user}:${password}@127.0.0.1:${inject("mysqlPort")}/${db}`;
const loopback = () => runtimeWith({ OUTBOUND_ALLOW: "127.0.0.1" } as never);
/** Loopback, with a short SQL_CONNECT_TIMEOUT_MS: a silent server's 504 in 1.5 s, not the default 10. */
const impatient = () => runtimeWith({ OUTBOUND_ALLOW: "127.0.0.1", SQL_CONNECT_TIMEOUT_MS: "1500" } as never);

interface MysqlConnection {
  user: string;
  database: string;
  plugin: string;
  auth: string;
  statements: string[];
}
/** The stand-in's connections with a statement containing `m`. */
const connectionsWith = async (m: string) =>
  ((await (await fetch(`${inject("mysqlUrl")}/requests`)).json()) as MysqlConnection[]).filter((c) =>
    c.statements.some((s) => s.includes(m)),
  );

async function template(url: string, inputs: Record<string, unknown> = {}): Promise<string> {
  const cred = await credential("openAIApi", { openAIApiKey: "sk-test-openai" });
  return flowDataOf(sqlTemplate as unknown as Fixture, (n) => {
    pointAtStandin(n.get("chatOpenAI_0")!, cred);
    Object.assign(n.get("sqlDatabaseChain_0")!.data.inputs!, { database: "mysql", url, ...inputs });
  });
}
const ask = async (url: string, query: string, inputs: Record<string, unknown> = {}) => {
  const m = marker();
  const result = await runFlow(await template(url, inputs), makeCtx(`${m} [sql: ${query} /* ${m} */ :sql]`, { runtime: loopback() }));
  return { m, result };
};
const failure = async (p: Promise<unknown>) =>
  (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status: number; message: string };

describe("SQL DB Chain template on MySQL", () => {
  it("MySQL's prompt, tables from information_schema with sample rows, the query run read-only, the answer from its rows", async () => {
    const m = marker();
    const query = `SELECT \`title\` FROM albums WHERE \`year\` = 1959 ORDER BY \`id\` /* ${m} */`;
    const result = await runFlow(
      await template(mysqlUrl(), { ignoreTables: "secrets" }),
      makeCtx(`Which albums are from 1959? ${m} [sql: ${query} :sql]`, { runtime: loopback() }),
    );
    const [prompt, answer] = await requestsWith(m);
    const text = prompt.body.messages[0].content as string;
    expect(text.startsWith("You are a MySQL expert.")).toBe(true);
    expect(text).toContain("Wrap each column name in backticks (`) to denote them as delimited identifiers.");
    expect(text).toContain(
      "CREATE TABLE albums (\nid integer NOT NULL, title text NOT NULL, artist text NOT NULL, year integer ) \n" +
        "SELECT * FROM `albums` LIMIT 3;\n id title artist year\n 1 Kind of Blue Miles Davis 1959\n 2 Blue Train John Coltrane 1958\n",
    );
    expect(text).not.toContain("not for the model");
    const rows = '[{"title":"Kind of Blue"},{"title":"Mingus Ah Um"}]';
    expect(answer.body.messages[0].content.endsWith(`SQLResult: ${rows}\nAnswer:`)).toBe(true);
    expect(result.text).toBe(`rows: ${rows}`);

    const [conn] = await connectionsWith(m);
    expect(conn).toMatchObject({ user: "flowise", database: "shop", plugin: "mysql_native_password", auth: "switch" });
    expect(conn.statements).toEqual(["SET SESSION MAX_EXECUTION_TIME = 30000", "START TRANSACTION READ ONLY", query, "ROLLBACK"]);
  });

  it("caching_sha2_password: full authentication with the server's RSA key first, the fast path after", async () => {
    const first = await ask(mysqlUrl("analyst", SHA2_PASSWORD), "SELECT count(*) AS n FROM albums");
    expect(first.result.text).toBe('rows: [{"n":4}]');
    const second = await ask(mysqlUrl("analyst", SHA2_PASSWORD), "SELECT count(*) AS n FROM albums");
    expect(second.result.text).toBe('rows: [{"n":4}]');
    const all = ((await (await fetch(`${inject("mysqlUrl")}/requests`)).json()) as MysqlConnection[]).filter((c) => c.user === "analyst");
    expect(all[0]).toMatchObject({ plugin: "caching_sha2_password", auth: "rsa" });
    expect((await connectionsWith(second.m))[0]).toMatchObject({ user: "analyst", auth: "fast" });
  });

  it("NULLs, numbers, JSON and text come back typed; Flowise's host:port/db form works", async () => {
    const bare = mysqlUrl().replace(/^mysql:\/\//, "");
    const { result } = await ask(
      bare,
      "SELECT NULL AS nothing, 2.5 AS dec, 7 AS seven, CAST('{\"a\":[1]}' AS JSON) AS j, 'it''s \\\\ ok' AS s",
    );
    expect(result.text).toBe('rows: [{"nothing":null,"dec":"2.5","seven":7,"j":{"a":[1]},"s":"it\'s \\\\ ok"}]');
  });

  it("read-only: a write the word check lets through fails in the READ ONLY transaction; DML is refused before it runs", async () => {
    const { result } = await ask(mysqlUrl(), "SELECT nextval('albums_seq') AS n");
    expect(result.text).toMatch(/^rows: "Error: Cannot execute statement in a READ ONLY transaction\. \(1792\)"/);
    const refused = await ask(mysqlUrl(), "DELETE FROM albums");
    expect(refused.result.text).toContain("this one starts with DELETE");
    expect(await connectionsWith(refused.m)).toEqual([]);
    const still = await ask(mysqlUrl(), "SELECT count(*) AS n FROM albums");
    expect(still.result.text).toBe('rows: [{"n":4}]');
    const error = await ask(mysqlUrl(), "SELECT `nope` FROM albums");
    expect(error.result.text).toMatch(/^rows: "Error: Unknown column 'nope' in 'field list' \(1054\)"/);
  });

  it("a wrong password is a 502 with MySQL's message and never the password; an unknown database too", async () => {
    const wrong = await failure(
      runFlow(await template(mysqlUrl("flowise", "hunter2-wrong")), makeCtx(`${marker()} [sql: SELECT 1 :sql]`, { runtime: loopback() })),
    );
    expect(wrong.status).toBe(502);
    expect(wrong.message).toMatch(
      /^MySQL database at 127\.0\.0\.1:\d+\/shop refused the connection: Access denied for user 'flowise'@'127\.0\.0\.1' \(using password: YES\) \(1045\)$/,
    );
    expect(wrong.message).not.toContain("hunter2-wrong");
    const rsa = await failure(
      runFlow(await template(mysqlUrl("analyst", "hunter3-wrong")), makeCtx(`${marker()} [sql: SELECT 1 :sql]`, { runtime: loopback() })),
    );
    expect(rsa).toMatchObject({ status: 502, message: expect.stringContaining("Access denied for user 'analyst'") });
    const unknown = await failure(
      runFlow(
        await template(mysqlUrl("flowise", NATIVE_PASSWORD, "nope")),
        makeCtx(`${marker()} [sql: SELECT 1 :sql]`, { runtime: loopback() }),
      ),
    );
    expect(unknown).toMatchObject({ status: 502, message: expect.stringContaining("Unknown database 'nope' (1049)") });
  });

  it("a private host is a 400; down is a 502, silent a 504, both naming the database without the password", async () => {
    const private_ = await failure(
      runFlow(await template("mysql://u:hunter2-secret@10.0.0.5:3306/shop"), makeCtx(`${marker()} [sql: SELECT 1 :sql]`)),
    );
    expect(private_).toMatchObject({
      status: 400,
      message: expect.stringContaining("Sql Database Chain url refused by the outbound policy: 10.0.0.5 is a private address"),
    });
    const port = new URL(closedUrl()).port;
    const down = await failure(
      runFlow(
        await template(`mysql://app:hunter2-secret@127.0.0.1:${port}/shop`),
        makeCtx(`${marker()} [sql: SELECT 1 :sql]`, { runtime: loopback() }),
      ),
    );
    expect(down.status).toBe(502);
    expect(down.message).toContain(`MySQL database at 127.0.0.1:${port}/shop cannot be reached`);
    const silentPort = new URL(inject("silentPostgresUrl").replace(/^postgres:/, "http:")).port;
    const silent = await failure(
      runFlow(
        await template(`mysql://app:hunter2-secret@127.0.0.1:${silentPort}/shop`),
        makeCtx(`${marker()} [sql: SELECT 1 :sql]`, { runtime: impatient() }),
      ),
    );
    expect(silent).toMatchObject({ status: 504, message: `MySQL database at 127.0.0.1:${silentPort}/shop did not answer within 1500 ms` });
    for (const e of [private_, down, silent]) expect(e.message).not.toContain("hunter2-secret");
    const bad = await failure(runFlow(await template("postgres://x@h/db"), makeCtx(`${marker()} [sql: SELECT 1 :sql]`)));
    expect(bad).toMatchObject({
      status: 400,
      message: "Sql Database Chain: a MySQL connection string starts with mysql://, not postgres://",
    });
  }, 60_000);
});
