// The composio tool as a user runs it: a saved chatflow whose Tool Agent has the node, asked through
// POST /prediction (the scripted model calls a Composio action by its name), and the canvas's pickers
// (POST /node-load-method/composio). Composio's backend is a stand-in (test/standin/composio.mjs): API v3
// only (v1/v2 answer 410), the key in x-api-key (a valid key is "composio-key-" + the test's marker, so a
// test's requests are found by its key), lists paged by cursor, tools versioned, execution recorded.
import { afterEach, describe, expect, inject, it } from "vitest";
import { call, json } from "../helpers";
import { setVars } from "../security/helpers";
import { callOf, toolAgentFlow } from "./agents-flows";
import { credential, marker } from "./helpers";

const composio = () => inject("composioUrl");
const STAR = "GITHUB_STAR_A_REPOSITORY_FOR_THE_AUTHENTICATED_USER";
const USER = "GITHUB_GET_THE_AUTHENTICATED_USER";
const ISSUE = "GITHUB_CREATE_AN_ISSUE";
const LATEST = "20250909_00";

type Received = { method: string; path: string; query: Record<string, string>; headers: Record<string, string | null>; body: any };
const received = async (contains: string): Promise<Received[]> =>
  (await fetch(`${composio()}/requests?contains=${encodeURIComponent(contains)}`)).json();

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});
const vars = (base = composio()) => {
  restore = setVars({ OUTBOUND_ALLOW: "127.0.0.1", COMPOSIO_BASE_URL: base });
};

const keyCredential = async (key: string) => credential("composioApi", { composioApi: key });

/** A Tool Agent with the composio node, saved; answers its id. */
async function saveAgent(inputs: Record<string, unknown>, credentialId: string): Promise<string> {
  const openai = await credential("openAIApi", { openAIApiKey: "sk-composio" });
  const flow = JSON.parse(
    toolAgentFlow({ credential: openai, calculator: false, memory: false, nodes: [{ id: "composio_0", name: "composio", inputs }] }),
  );
  flow.nodes.find((n: { id: string }) => n.id === "composio_0").data.credential = credentialId;
  return (await json("POST", "/chatflows", { body: { name: "composio agent", flowData: JSON.stringify(flow) } })).id;
}
const predict = (id: string, question: string) => call("POST", `/prediction/${id}`, { body: { question } });

const load = async (loadMethod: string, cred: string | undefined, inputs: Record<string, unknown> = {}) => {
  const res = await call("POST", "/node-load-method/composio", { body: { loadMethod, credential: cred, inputs } });
  return { status: res.status, body: (await res.json()) as any };
};

describe("composio in a Tool Agent through POST /prediction", () => {
  it("an auth app: the connected account checked, the tool with its schema, executed with the account (API v3)", async () => {
    vars();
    const m = marker();
    const key = `composio-key-${m}`;
    const id = await saveAgent(
      { appName: "github", connectedAccountId: "ca_active1", actions: JSON.stringify([STAR]) },
      await keyCredential(key),
    );
    const res = await predict(id, `Star it ${callOf(STAR, { owner: m, repo: "edgeflow" })}`);
    expect(res.status).toBe(200);
    const out = (await res.json()) as { text: string; usedTools: { tool: string; toolInput: unknown }[] };
    expect(out.text).toBe(`tools said: ${JSON.stringify({ data: { details: `starred ${m}/edgeflow` }, error: null, successful: true })}`);
    expect(out.usedTools[0]).toMatchObject({ tool: STAR, toolInput: { owner: m, repo: "edgeflow" } });

    const reqs = await received(key);
    expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /api/v3/toolkits/github",
      "GET /api/v3/connected_accounts/ca_active1",
      "GET /api/v3/tools",
      `POST /api/v3/tools/execute/${STAR}`,
    ]);
    expect(reqs[2].query).toEqual({ tool_slugs: STAR, toolkit_versions: "latest" });
    expect(reqs[3].headers).toEqual({ "x-api-key": key });
    expect(reqs[3].body).toEqual({ connected_account_id: "ca_active1", arguments: { owner: m, repo: "edgeflow" }, version: LATEST });
  });

  it("a saved flow's v2 action names still work: all chosen tools found across pages, at the latest version", async () => {
    vars();
    const m = marker();
    const key = `composio-key-${m}`;
    // Three tools: the listing pages (two a page); ISSUE exists only in the newest toolkit version.
    const id = await saveAgent(
      { appName: "github", connectedAccountId: "ca_active1", actions: JSON.stringify([STAR, USER, ISSUE]) },
      await keyCredential(key),
    );
    const res = await predict(id, `File it ${callOf(ISSUE, { owner: m, repo: "edgeflow", title: "Ünïcode ✓" })}`);
    expect(((await res.json()) as { text: string }).text).toBe(
      `tools said: ${JSON.stringify({ data: { issue: `${m}/edgeflow: Ünïcode ✓` }, error: null, successful: true })}`,
    );
    const reqs = await received(key);
    const lists = reqs.filter((r) => r.path === "/api/v3/tools");
    expect(lists.map((r) => r.query.cursor ?? null)).toEqual([null, expect.any(String)]);
    expect(lists[1].query).toMatchObject({ tool_slugs: `${STAR},${USER},${ISSUE}`, toolkit_versions: "latest" });
    expect(reqs.at(-1)).toMatchObject({ path: `/api/v3/tools/execute/${ISSUE}`, body: { version: LATEST } });
  });

  it("a no-auth app needs no account; Composio's unsuccessful answer reaches the model as the tool's error", async () => {
    vars();
    const m = marker();
    const key = `composio-key-${m}`;
    const id = await saveAgent({ appName: "hackernews", actions: '["HACKERNEWS_SEARCH_POSTS"]' }, await keyCredential(key));
    const res = await predict(id, `News ${callOf("HACKERNEWS_SEARCH_POSTS", { query: m, size: 2 })}`);
    expect(((await res.json()) as { text: string }).text).toBe(
      `tools said: ${JSON.stringify({ data: { posts: [{ title: `HN on ${m}`, points: 2 }] }, error: null, successful: true })}`,
    );
    const exec = (await received(key)).filter((r) => r.method === "POST");
    expect(exec.map((r) => r.body)).toEqual([{ arguments: { query: m, size: 2 }, version: LATEST }]);
    expect((await received(key)).some((r) => r.path.startsWith("/api/v3/connected_accounts"))).toBe(false);

    const gh = await saveAgent(
      { appName: "github", connectedAccountId: "ca_active1", actions: JSON.stringify([STAR]) },
      await keyCredential(key),
    );
    const missing = await predict(gh, `Star ${callOf(STAR, { owner: m, repo: "missing" })}`);
    expect(((await missing.json()) as { text: string }).text).toBe("tools said: Error: 404 Not Found: repository missing");
  });

  it("a refused key is a 502 with Composio's message and never the key; an expired account, a v1 id or no app a 400", async () => {
    vars();
    const bad = `bad-key-${marker()}`;
    const id = await saveAgent(
      { appName: "github", connectedAccountId: "ca_active1", actions: JSON.stringify([STAR]) },
      await keyCredential(bad),
    );
    const res = await predict(id, "hello");
    expect(res.status).toBe(502);
    const text = await res.text();
    expect(text).toContain("Composio answered 401: Invalid API key provided (suggested fix: Pass a valid API key in the x-api-key header)");
    expect(text).not.toContain(bad);
    expect((await received(bad))[0].headers["x-api-key"]).toBe(bad);

    const key = `composio-key-${marker()}`;
    const cred = await keyCredential(key);
    const expired = await saveAgent({ appName: "github", connectedAccountId: "ca_expired2", actions: JSON.stringify([STAR]) }, cred);
    const r2 = await predict(expired, "hello");
    expect(r2.status).toBe(400);
    expect(await r2.text()).toContain("Selected connection is no longer active for github");
    // A flow saved against API v1 holds the account's UUID: v3 knows it as ca_…, the user must choose it again.
    const uuid = "b7a9c1e2-3f4d-4a6b-8c2e-1d2f3a4b5c6d";
    const v1 = await saveAgent({ appName: "github", connectedAccountId: uuid, actions: JSON.stringify([STAR]) }, cred);
    const r3 = await predict(v1, "hello");
    expect(r3.status).toBe(400);
    expect(await r3.text()).toContain(`the connected account ${uuid} is a Composio API v1 id (a UUID); API v3 names accounts ca_…`);
    const slack = await saveAgent({ appName: "github", connectedAccountId: "ca_slack4", actions: JSON.stringify([STAR]) }, cred);
    const r4 = await predict(slack, "hello");
    expect(r4.status).toBe(400);
    expect(await r4.text()).toContain("the connected account ca_slack4 is for slack, not github");
    const noApp = await saveAgent({ actions: JSON.stringify([STAR]) }, cred);
    const r5 = await predict(noApp, "hello");
    expect(r5.status).toBe(400);
    expect(await r5.text()).toContain("App name is required");
    expect((await received(key)).some((r) => r.method === "POST")).toBe(false);
  });

  it("COMPOSIO_BASE_URL on a private address is refused (400) before any call", async () => {
    vars("http://10.1.2.3:8080");
    const key = `composio-key-${marker()}`;
    const id = await saveAgent(
      { appName: "github", connectedAccountId: "ca_active1", actions: JSON.stringify([STAR]) },
      await keyCredential(key),
    );
    const res = await predict(id, "hello");
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/COMPOSIO_BASE_URL refused by the outbound policy: 10\.1\.2\.3 is a private address/);
    expect((await load("listApps", await keyCredential(key))).status).toBe(400);
    expect(await received(key)).toEqual([]);
  });
});

describe("composio's pickers through POST /node-load-method/composio", () => {
  it("lists Composio's toolkits, a toolkit's tools and all its active connected accounts, as Flowise's node does", async () => {
    vars();
    const key = `composio-key-${marker()}`;
    const cred = await keyCredential(key);
    expect((await load("listApps", cred)).body).toEqual([
      { label: "GITHUB", name: "github", description: "Code hosting" },
      { label: "HACKERNEWS", name: "hackernews", description: "Hacker News reader" },
    ]);
    expect((await load("listActions", cred, { appName: "github" })).body).toEqual([
      { label: ISSUE, name: ISSUE, description: "Create an issue in a repository" },
      { label: USER, name: USER, description: "Get the authenticated user" },
      { label: STAR, name: STAR, description: "Star a repository for the authenticated user" },
    ]);
    // Three ACTIVE accounts, two a page: the third comes from following next_cursor.
    expect((await load("listConnections", cred, { appName: "github" })).body).toEqual([
      { label: "user-ada", name: "ca_active1", description: "Created: 1/2/2025" },
      { label: "user-cy", name: "ca_active3", description: "Created: 3/4/2025" },
      { label: "user-dee", name: "ca_active5", description: "Created: 5/6/2025" },
    ]);
    expect((await load("listConnections", cred, { appName: "hackernews" })).body).toEqual([
      { label: "No connection needed", name: "No connection needed", description: "This app does not require authentication" },
    ]);
    const reqs = await received(key);
    expect(reqs[0]).toMatchObject({ path: "/api/v3/toolkits", query: { limit: "1000" } });
    expect(reqs[1]).toMatchObject({ path: "/api/v3/tools", query: { toolkit_slug: "github", toolkit_versions: "latest", limit: "1000" } });
    expect(reqs[2]).toMatchObject({ path: "/api/v3/toolkits/github" });
    expect(reqs.filter((r) => r.path === "/api/v3/connected_accounts").map((r) => r.query)).toEqual([
      { toolkit_slugs: "github", statuses: "ACTIVE" },
      { toolkit_slugs: "github", statuses: "ACTIVE", cursor: expect.any(String) },
    ]);
  });

  it("hints without a key or an app; a refused key lists Composio's message without the key", async () => {
    vars();
    for (const method of ["listApps", "listActions", "listConnections"])
      expect((await load(method, undefined)).body).toEqual([
        { label: "API Key Required", name: "placeholder", description: "Enter Composio API key in the credential field" },
      ]);
    const cred = await keyCredential(`composio-key-${marker()}`);
    expect((await load("listActions", cred)).body).toEqual([
      { label: "Select an App first", name: "placeholder", description: "Select an app from the dropdown to view available actions" },
    ]);
    const bad = `bad-key-${marker()}`;
    const badCred = await keyCredential(bad);
    const apps = await load("listApps", badCred);
    expect(apps.status).toBe(200);
    expect(apps.body).toEqual([
      {
        label: "Error Loading Apps",
        name: "error",
        description:
          "Failed to load apps. Please check your API key and try again (Composio answered 401: Invalid API key provided " +
          "(suggested fix: Pass a valid API key in the x-api-key header))",
      },
    ]);
    const conns = await load("listConnections", badCred, { appName: "github" });
    expect(conns.status).toBe(502);
    expect(JSON.stringify(conns.body)).not.toContain(bad);
  });
});
