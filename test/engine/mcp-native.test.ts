// Flowise's process-based MCP nodes run natively (src/engine/tools/mcp/native/): each in a
// chatflow's Tool Agent whose scripted model calls the server's tools, the vendor stand-ins
// recording what they received; the canvas's Available Actions through POST /node-load-method.
import { describe, expect, inject, it } from "vitest";
import { callOf, toolAgentFlow } from "./agents-flows";
import { credential, makeCtx, marker, runFlow, runtimeWith } from "./helpers";
import { call } from "../helpers";

const openAI = () => credential("openAIApi", { openAIApiKey: "sk-mcp-native" });

async function flowWith(name: string, inputs: Record<string, unknown>) {
  const nodes = [{ id: `${name}_0`, name, label: name, inputs }];
  return toolAgentFlow({ credential: await openAI(), calculator: false, memory: false, nodes });
}

const failure = async (p: Promise<unknown>): Promise<{ status?: number; message: string }> => {
  try {
    await p;
  } catch (err) {
    return err as { status?: number; message: string };
  }
  throw new Error("expected a failure");
};

async function actions(node: string, body: Record<string, unknown> = {}) {
  const res = await call("POST", `/node-load-method/${node}`, { body: { loadMethod: "listActions", inputs: {}, ...body } });
  expect(res.status).toBe(200);
  return (await res.json()) as { label: string; name: string; description: string }[];
}

const json = (v: unknown) => JSON.stringify(v, null, 2);

describe("sequentialThinkingMCP", () => {
  const thought = (n: number, total: number, more: Record<string, unknown> = {}) =>
    callOf("sequentialthinking", { thought: `step ${n}`, nextThoughtNeeded: n < 3, thoughtNumber: n, totalThoughts: total, ...more });

  it("keeps the run's thought history and branches, answering the server's JSON", async () => {
    const flow = await flowWith("sequentialThinkingMCP", { mcpActions: '["sequentialthinking"]' });
    const q = `${thought(1, 2)} ${thought(3, 2)} ${thought(2, 3, { branchFromThought: 1, branchId: "alt" })} ${marker()}`;
    const result = await runFlow(flow, makeCtx(q));
    const answers = [
      { thoughtNumber: 1, totalThoughts: 2, nextThoughtNeeded: true, branches: [], thoughtHistoryLength: 1 },
      { thoughtNumber: 3, totalThoughts: 3, nextThoughtNeeded: false, branches: [], thoughtHistoryLength: 2 },
      { thoughtNumber: 2, totalThoughts: 3, nextThoughtNeeded: true, branches: ["alt"], thoughtHistoryLength: 3 },
    ];
    expect(result.text).toBe(`tools said: ${answers.map(json).join(" | ")}`);
    // a new run starts a new history, as a new server process does
    const again = await runFlow(flow, makeCtx(`${thought(1, 1)} ${marker()}`));
    expect(again.text).toBe(
      `tools said: ${json({ thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: true, branches: [], thoughtHistoryLength: 1 })}`,
    );
  });

  it("a thought the server's schema refuses is the tool's error to the model; unchosen tools are not offered", async () => {
    const flow = await flowWith("sequentialThinkingMCP", { mcpActions: '["sequentialthinking"]' });
    const bad = callOf("sequentialthinking", { thought: "x", nextThoughtNeeded: true, thoughtNumber: 0, totalThoughts: 1 });
    const result = await runFlow(flow, makeCtx(`${bad} ${marker()}`));
    // LangChain checks the arguments against the server's schema before the call, as for remote MCP tools
    expect(result.text).toBe("tools said: Error: Received tool input did not match expected schema");
    const none = await flowWith("sequentialThinkingMCP", { mcpActions: "[]" });
    const plain = await runFlow(none, makeCtx(`hello ${marker()}`));
    expect(plain.text).not.toContain("tools said");
  });

  it("the canvas's Available Actions: the server's one tool, no server call", async () => {
    const options = await actions("sequentialThinkingMCP");
    expect(options).toEqual([{ label: "SEQUENTIALTHINKING", name: "sequentialthinking", description: expect.any(String) }]);
    expect(options[0].description).toMatch(/^A detailed tool for dynamic and reflective problem-solving through thoughts\./);
  });
});

describe("postgreSQLMCP", () => {
  const pgUrl = () => inject("postgresUrl");
  const loopback = () => runtimeWith({ OUTBOUND_ALLOW: "127.0.0.1" } as never);
  const pgFlow = async (postgresUrl: string) => {
    const cred = await credential("PostgresUrl", { postgresUrl });
    return flowWith("postgreSQLMCP", { FLOWISE_CREDENTIAL_ID: cred, mcpActions: ["query"] });
  };
  const query = (sql: string) => callOf("query", { sql });

  it("runs the model's SQL and answers the rows as the server's JSON text", async () => {
    const sql = `SELECT title, year FROM albums WHERE artist = 'John Coltrane' AND '${marker()}' <> '' ORDER BY id`;
    const result = await runFlow(await pgFlow(pgUrl()), makeCtx(query(sql), { runtime: loopback() }));
    const rows = [
      { title: "Blue Train", year: 1958 },
      { title: "Giant Steps", year: 1960 },
    ];
    expect(result.text).toBe(`tools said: ${json(rows)}`);
  });

  it("reads in a READ ONLY transaction; the database's refusal is the tool's error text", async () => {
    const flow = await pgFlow(pgUrl());
    const q = `${query("SELECT nextval('albums_seq')")} ${query("SELECT * FROM no_such_table")} ${query("DELETE FROM albums")} ${marker()}`;
    const result = await runFlow(flow, makeCtx(q, { runtime: loopback() }));
    const [seq, missing, write] = result.text.replace(/^tools said: /, "").split(" | ");
    expect(seq).toMatch(/cannot execute nextval\(\) in a read-only transaction/);
    expect(missing).toMatch(/relation "no_such_table" does not exist/);
    expect(write).toMatch(/Only read-only statements \(SELECT\) may run; this one starts with DELETE/);
    const count = await runFlow(flow, makeCtx(query("SELECT count(*)::int AS n FROM albums"), { runtime: loopback() }));
    expect(count.text).toBe(`tools said: ${json([{ n: 4 }])}`);
  });

  it("a private database host is a 400 at build without the password; no credential is a 400", async () => {
    const err = await failure(runFlow(await pgFlow("postgresql://u:pg-secret-pw@10.1.2.3:5432/db"), makeCtx(query("SELECT 1"))));
    expect(err).toMatchObject({ status: 400, message: expect.stringContaining("refused by the outbound policy") });
    expect(err.message).not.toContain("pg-secret-pw");
    const none = await failure(runFlow(await flowWith("postgreSQLMCP", { mcpActions: ["query"] }), makeCtx("hi")));
    expect(none).toMatchObject({ status: 400, message: expect.stringMatching(/needs a PostgresUrl credential with postgresUrl/) });
  });

  it("the canvas's Available Actions: query, without a database call", async () => {
    expect(await actions("postgreSQLMCP")).toEqual([{ label: "QUERY", name: "query", description: "Run a read-only SQL query" }]);
  });
});

describe("braveSearchMCP", () => {
  const brave = () => runtimeWith({ BRAVE_SEARCH_BASE_URL: `${inject("servicesUrl")}/brave-mcp` });
  const all = [
    "brave_web_search",
    "brave_local_search",
    "brave_video_search",
    "brave_image_search",
    "brave_news_search",
    "brave_summarizer",
  ];
  const braveFlow = async (braveApiKey = "brave-key-1", mcpActions: unknown = all) =>
    flowWith("braveSearchMCP", { FLOWISE_CREDENTIAL_ID: await credential("braveSearchApi", { braveApiKey }), mcpActions });
  type Got = { path: string; query: Record<string, string>; headers: Record<string, string> };
  const got = async (text: string): Promise<Got[]> =>
    (await fetch(`${inject("servicesUrl")}/requests?service=brave-mcp&contains=${encodeURIComponent(text)}`)).json();
  const said = (text: string) => text.replace(/^tools said: /, "").split(" | ");

  it("brave_web_search: Brave's web search with the server's defaults and key; results as JSON lines", async () => {
    const m = marker();
    const result = await runFlow(await braveFlow(), makeCtx(callOf("brave_web_search", { query: m, count: 3 }), { runtime: brave() }));
    expect(result.text).toBe(
      `tools said: ${JSON.stringify({ url: "https://example.com/w", title: `Web on ${m}`, description: "web desc" })}`,
    );
    const [req] = await got(m);
    expect(req.path).toBe("/brave-mcp/res/v1/web/search");
    expect(req.headers["x-subscription-token"]).toBe("brave-key-1");
    expect(req.query).toEqual({
      q: m,
      country: "US",
      search_lang: "en",
      ui_lang: "en-US",
      count: "3",
      offset: "0",
      safesearch: "moderate",
      text_decorations: "true",
      spellcheck: "true",
      result_filter: "web,query",
    });
  });

  it("summary key, then brave_summarizer; local search with descriptions; news, videos, images", async () => {
    const m = marker();
    const calls = [
      callOf("brave_web_search", { query: `${m}-s`, summary: true }),
      callOf("brave_summarizer", { key: `sum-${m}-s`, inline_references: true }),
      callOf("brave_local_search", { query: `${m}-l` }),
      callOf("brave_news_search", { query: `${m}-n` }),
      callOf("brave_video_search", { query: `${m}-v` }),
      callOf("brave_image_search", { query: `${m}-i` }),
    ];
    const result = await runFlow(await braveFlow(), makeCtx(calls.join(" "), { runtime: brave() }));
    const [web, summary, local, newsText, video, image] = said(result.text);
    expect(web.split("\n")[0]).toBe(`Summarizer key: sum-${m}-s`);
    expect(summary).toBe(`Summary for sum-${m}-s (https://example.com/r)`);
    expect(local.split("\n").map((l) => JSON.parse(l))).toEqual([
      {
        name: `Cafe ${m}-l`,
        price_range: "$$",
        phone: "+1 555 0100",
        rating: 4.5,
        rating_count: 12,
        description: "About loc-1",
        address: "1 Main St",
        hours: { "today (monday)": "08:00-17:00", tuesday: "08:00-12:00, 13:00-17:00" },
      },
      { name: "Bakery", description: "About loc-2" },
    ]);
    expect(JSON.parse(newsText)).toEqual({
      url: "https://example.com/n",
      title: `News on ${m}-n`,
      age: "2h",
      breaking: false,
      description: "d",
      thumbnail: "https://t/n.jpg",
    });
    expect(JSON.parse(video)).toEqual({
      url: "https://example.com/v",
      title: `Video on ${m}-v`,
      description: "v",
      duration: "01:02",
      thumbnail_url: "https://t/v.jpg",
    });
    expect(JSON.parse(image)).toMatchObject({ type: "object", count: 1, might_be_offensive: false, items: [{ title: `Image of ${m}-i` }] });
    const [s] = await got(`${m}-s`);
    expect(s.query.result_filter).toBe("summarizer");
    const l = await got(`${m}-l`);
    expect(l[0].query.result_filter).toBe("web,query,web,locations");
    expect((await got("sum-")).some((r) => r.path === "/brave-mcp/res/v1/summarizer/search" && r.query.key === `sum-${m}-s`)).toBe(true);
  });

  it("Brave failing is the tool's error text (status, reason, body) without the key; no results is an error", async () => {
    const m = marker();
    const bad = await runFlow(await braveFlow("brave-bad-key"), makeCtx(callOf("brave_news_search", { query: m }), { runtime: brave() }));
    expect(bad.text).toMatch(/^tools said: Error: 401 Unauthorized\n\{\n {2}"type": "ErrorResponse"/);
    expect(bad.text).toContain("SUBSCRIPTION_TOKEN_INVALID");
    const q = `${callOf("brave_web_search", { query: `[leak-key] ${m}` })} ${callOf("brave_web_search", { query: `[nothing] ${m}` })}`;
    const echoed = await runFlow(await braveFlow("brave-secret-key"), makeCtx(q, { runtime: brave() }));
    const [leak, nothing] = said(echoed.text);
    expect(leak).toMatch(/^Error: 422 Unprocessable Entity/);
    expect(echoed.text).not.toContain("brave-secret-key");
    expect(nothing).toBe("Error: No web results found");
  });

  it("a private BRAVE_SEARCH_BASE_URL or no credential is a 400 at build; the canvas lists the six tools", async () => {
    const flow = await braveFlow("brave-secret-key");
    const err = await failure(runFlow(flow, makeCtx("hi", { runtime: runtimeWith({ BRAVE_SEARCH_BASE_URL: "http://10.4.5.6" }) })));
    expect(err).toMatchObject({ status: 400, message: expect.stringMatching(/^BRAVE_SEARCH_BASE_URL refused by the outbound policy: /) });
    expect(err.message).not.toContain("brave-secret-key");
    const none = await failure(runFlow(await flowWith("braveSearchMCP", { mcpActions: all }), makeCtx("hi")));
    expect(none).toMatchObject({ status: 400, message: expect.stringMatching(/needs a braveSearchApi credential with braveApiKey/) });
    const options = await actions("braveSearchMCP");
    expect(options.map((o) => o.name)).toEqual([...all].sort());
    expect(options[0]).toMatchObject({ label: "BRAVE_IMAGE_SEARCH", name: "brave_image_search" });
  });
});
