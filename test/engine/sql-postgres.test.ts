// sqlDatabaseChain on Postgres: the SQL DB Chain template with database "postgres", against a real
// Postgres speaking the wire protocol on loopback (PGlite, test/standin/postgres.mjs), reached over
// the Workers TCP socket API. The connection URL is under the outbound policy; reads run read-only.
import { env as workerEnv } from "cloudflare:workers";
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
  standinUrl,
} from "./helpers";

const pgUrl = () => inject("postgresUrl");
const loopback = () => runtimeWith({ OUTBOUND_ALLOW: "127.0.0.1" } as never);
/** Loopback, with a short SQL_CONNECT_TIMEOUT_MS: a silent server's 504 in 1.5 s, not the default 10. */
const impatient = () => runtimeWith({ OUTBOUND_ALLOW: "127.0.0.1", SQL_CONNECT_TIMEOUT_MS: "1500" } as never);

async function template(url: string, inputs: Record<string, unknown> = {}): Promise<string> {
  const cred = await credential("openAIApi", { openAIApiKey: "sk-test-openai" });
  return flowDataOf(sqlTemplate as unknown as Fixture, (n) => {
    pointAtStandin(n.get("chatOpenAI_0")!, cred);
    Object.assign(n.get("sqlDatabaseChain_0")!.data.inputs!, { database: "postgres", url, ...inputs });
  });
}

describe("SQL DB Chain template on PostgreSQL", () => {
  it("shows the tables with sample rows, runs the query and answers from its rows", async () => {
    const m = marker();
    const question = `Which albums are from 1959? ${m} [sql: SELECT "title" FROM albums WHERE "year" = 1959 ORDER BY "id" :sql]`;
    const result = await runFlow(await template(pgUrl(), { ignoreTables: "secrets" }), makeCtx(question, { runtime: loopback() }));
    const [ask, answer] = await requestsWith(m);
    const prompt = ask.body.messages[0].content;
    expect(prompt.startsWith("You are a PostgreSQL expert.")).toBe(true);
    expect(prompt).toContain(
      'CREATE TABLE "public"."albums" (\nid integer NOT NULL, title text NOT NULL, artist text NOT NULL, year integer ) \nSELECT * FROM "public"."albums" LIMIT 3;\n id title artist year\n 1 Kind of Blue Miles Davis 1959\n 2 Blue Train John Coltrane 1958\n 3 Giant Steps John Coltrane 1960\n',
    );
    expect(prompt).not.toContain("not for the model");
    const rows = '[{"title":"Kind of Blue"},{"title":"Mingus Ah Um"}]';
    expect(answer.body.messages[0].content.endsWith(`SQLResult: ${rows}\nAnswer:`)).toBe(true);
    expect(result.text).toBe(`rows: ${rows}`);
  });

  it("Flowise's host:port/db form works as well", async () => {
    const bare = pgUrl().replace(/^postgres:\/\//, "");
    const result = await runFlow(
      await template(bare),
      makeCtx(`${marker()} [sql: SELECT count(*)::int AS n FROM albums :sql]`, { runtime: loopback() }),
    );
    expect(result.text).toBe('rows: [{"n":4}]');
  });

  it("the url may be a variable ({{$vars.pgUrl}}), so the password stays out of flowData", async () => {
    const flow = await template("{{$vars.pgUrl}}");
    expect(flow).not.toContain("standin-pg-password");
    const result = await runFlow(
      flow,
      makeCtx(`${marker()} [sql: SELECT count(*)::int AS n FROM albums :sql]`, { runtime: loopback(), vars: { pgUrl: pgUrl() } }),
    );
    expect(result.text).toBe('rows: [{"n":4}]');
  });

  it("reads run in a read-only transaction: a write the word check lets through fails there", async () => {
    // nextval() changes the database but reads like a SELECT.
    const flow = await template(pgUrl());
    const result = await runFlow(flow, makeCtx(`${marker()} [sql: SELECT nextval('albums_seq') :sql]`, { runtime: loopback() }));
    expect(result.text).toMatch(/^rows: "Error: .*read-only transaction/);
    const refused = await runFlow(
      flow,
      makeCtx(`${marker()} [sql: WITH d AS (DELETE FROM albums RETURNING 1) SELECT count(*) FROM d :sql]`, { runtime: loopback() }),
    );
    expect(refused.text).toContain("contains DELETE");
    const still = await runFlow(flow, makeCtx(`${marker()} [sql: SELECT count(*)::int AS n FROM albums :sql]`, { runtime: loopback() }));
    expect(still.text).toBe('rows: [{"n":4}]');
  });

  it("a loopback database is refused in production unless OUTBOUND_ALLOW lists it", async () => {
    // The model (the stand-in) is listed by host:port; the database, on another port, is not.
    const production = runtimeWith({ ENVIRONMENT: "production", OUTBOUND_ALLOW: new URL(standinUrl()).host } as never);
    await expect(
      runFlow(await template(pgUrl()), makeCtx(`${marker()} [sql: SELECT 1 :sql]`, { runtime: production })),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("Sql Database Chain url refused by the outbound policy: 127.0.0.1 is a loopback address"),
    });
  });

  it("nodejs_compat (for the driver) leaves process.env empty: no secret or var is readable there", () => {
    const env = (globalThis as unknown as { process?: { env?: Record<string, unknown> } }).process?.env ?? {};
    expect(env.CREDENTIAL_ENCRYPTION_KEY).toBeUndefined();
    expect(env.ADMIN_API_KEY).toBeUndefined();
    // (The test runner adds its own VITEST_* and mode entries; none of the worker's.)
    expect(Object.keys(env).filter((k) => k in workerEnv)).toEqual([]);
  });

  it("a database that accepts and never answers is a 504 after the connect timeout (SQL_CONNECT_TIMEOUT_MS)", async () => {
    const started = Date.now();
    const err = (await runFlow(
      await template(inject("silentPostgresUrl")),
      makeCtx(`${marker()} [sql: SELECT 1 :sql]`, { runtime: impatient() }),
    ).catch((e: unknown) => e)) as {
      status: number;
      message: string;
    };
    expect(err.status).toBe(504);
    expect(err.message).toContain("PostgreSQL database at 127.0.0.1:");
    expect(err.message).toContain("did not answer within 1500 ms");
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    expect(Date.now() - started).toBeLessThan(6_000);
  });

  it("a database that is down is a 502 naming it, without the password", async () => {
    const port = new URL(closedUrl()).port;
    const err = (await runFlow(
      await template(`postgres://app:hunter2-secret@127.0.0.1:${port}/shop`),
      makeCtx(`${marker()} [sql: SELECT 1 :sql]`, { runtime: loopback() }),
    ).catch((e: unknown) => e)) as { status: number; message: string };
    expect(err.status).toBe(502);
    expect(err.message).toContain(`PostgreSQL database at 127.0.0.1:${port}/shop cannot be reached`);
    expect(err.message).not.toContain("hunter2-secret");
  });
});
