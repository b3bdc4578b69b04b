// The composio tool as a user runs it: a saved chatflow whose Tool Agent has the node, asked through
// POST /prediction (the scripted model calls a Composio action by its name), and the canvas's pickers
// (POST /node-load-method/composio). Composio's backend is a stand-in (test/standin/composio.mjs): the
// SDK's REST paths, the key in X-API-KEY (a valid key is "composio-key-" + the test's marker, so a
// test's requests are found by its key), execution recorded.
import { afterEach, describe, expect, inject, it } from "vitest";
import { call, json } from "../helpers";
import { setVars } from "../security/helpers";
import { callOf, toolAgentFlow } from "./agents-flows";
import { credential, marker } from "./helpers";

const composio = () => inject("composioUrl");
const STAR = "GITHUB_STAR_A_REPOSITORY_FOR_THE_AUTHENTICATED_USER";

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
  it("an auth app: the connected account checked, the action a tool with its schema, executed with the account", async () => {
    vars();
    const m = marker();
    const key = `composio-key-${m}`;
    const id = await saveAgent(
      { appName: "github", connectedAccountId: "ca-active-1", actions: JSON.stringify([STAR]) },
      await keyCredential(key),
    );
    const res = await predict(id, `Star it ${callOf(STAR, { owner: m, repo: "edgeflow" })}`);
    expect(res.status).toBe(200);
    const out = (await res.json()) as { text: string; usedTools: { tool: string; toolInput: unknown }[] };
    const result = { data: { details: `starred ${m}/edgeflow` }, error: null, successful: true, successfull: true };
    expect(out.text).toBe(`tools said: ${JSON.stringify(result)}`);
    expect(out.usedTools[0]).toMatchObject({ tool: STAR, toolInput: { owner: m, repo: "edgeflow" } });

    const reqs = await received(key);
    expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /api/v1/apps/github",
      "GET /api/v1/connectedAccounts/ca-active-1",
      "GET /api/v2/actions",
      `POST /api/v2/actions/${STAR}/execute`,
    ]);
    expect(reqs[2].query).toEqual({ actions: STAR });
    expect(reqs[3].headers).toEqual({ "x-api-key": key, "x-source": "js_sdk", "x-runtime": "langchain" });
    expect(reqs[3].body).toEqual({
      connectedAccountId: "ca-active-1",
      appName: "github",
      input: { owner: m, repo: "edgeflow" },
      allowTracing: false,
    });
  });

  it("a no-auth app needs no account; Composio's unsuccessful answer and a refused input reach the model as they are", async () => {
    vars();
    const m = marker();
    const key = `composio-key-${m}`;
    const id = await saveAgent({ appName: "hackernews", actions: '["HACKERNEWS_SEARCH_POSTS"]' }, await keyCredential(key));
    const res = await predict(id, `News ${callOf("HACKERNEWS_SEARCH_POSTS", { query: m, size: 2 })}`);
    expect(((await res.json()) as { text: string }).text).toBe(
      `tools said: ${JSON.stringify({ data: { posts: [{ title: `HN on ${m}`, points: 2 }] }, error: null, successful: true, successfull: true })}`,
    );
    const exec = (await received(key)).filter((r) => r.method === "POST");
    expect(exec.map((r) => r.body)).toEqual([{ appName: "hackernews", input: { query: m, size: 2 }, allowTracing: false }]);

    const gh = await saveAgent(
      { appName: "github", connectedAccountId: "ca-active-1", actions: JSON.stringify([STAR]) },
      await keyCredential(key),
    );
    const missing = await predict(gh, `Star ${callOf(STAR, { owner: m, repo: "missing" })}`);
    expect(((await missing.json()) as { text: string }).text).toContain('"error":"404 Not Found: repository missing","successful":false');
  });

  it("a refused key is a 502 with Composio's message and never the key; an expired account or no app a 400", async () => {
    vars();
    const bad = `bad-key-${marker()}`;
    const id = await saveAgent(
      { appName: "github", connectedAccountId: "ca-active-1", actions: JSON.stringify([STAR]) },
      await keyCredential(bad),
    );
    const res = await predict(id, "hello");
    expect(res.status).toBe(502);
    const text = await res.text();
    expect(text).toContain("Composio answered 401: Invalid API key provided");
    expect(text).not.toContain(bad);
    expect((await received(bad))[0].headers["x-api-key"]).toBe(bad);

    const key = `composio-key-${marker()}`;
    const expired = await saveAgent(
      { appName: "github", connectedAccountId: "ca-expired-2", actions: JSON.stringify([STAR]) },
      await keyCredential(key),
    );
    const r2 = await predict(expired, "hello");
    expect(r2.status).toBe(400);
    expect(await r2.text()).toContain("Selected connection is no longer active for github");
    const noApp = await saveAgent({ actions: JSON.stringify([STAR]) }, await keyCredential(key));
    const r3 = await predict(noApp, "hello");
    expect(r3.status).toBe(400);
    expect(await r3.text()).toContain("App name is required");
  });

  it("COMPOSIO_BASE_URL on a private address is refused (400) before any call", async () => {
    vars("http://10.1.2.3:8080");
    const key = `composio-key-${marker()}`;
    const id = await saveAgent(
      { appName: "github", connectedAccountId: "ca-active-1", actions: JSON.stringify([STAR]) },
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
  it("lists Composio's apps, an app's actions and its active connected accounts, as Flowise's node does", async () => {
    vars();
    const key = `composio-key-${marker()}`;
    const cred = await keyCredential(key);
    expect((await load("listApps", cred)).body).toEqual([
      { label: "GITHUB", name: "github", description: "Code hosting" },
      { label: "HACKERNEWS", name: "hackernews", description: "Hacker News reader" },
    ]);
    expect((await load("listActions", cred, { appName: "github" })).body).toEqual([
      { label: "GITHUB_GET_THE_AUTHENTICATED_USER", name: "GITHUB_GET_THE_AUTHENTICATED_USER", description: "Get the authenticated user" },
      { label: STAR, name: STAR, description: "Star a repository for the authenticated user" },
    ]);
    expect((await load("listConnections", cred, { appName: "github" })).body).toEqual([
      { label: "user-ada", name: "ca-active-1", description: "Created: 1/2/2025" },
    ]);
    expect((await load("listConnections", cred, { appName: "hackernews" })).body).toEqual([
      { label: "No connection needed", name: "No connection needed", description: "This app does not require authentication" },
    ]);
    const reqs = await received(key);
    expect(reqs[0]).toMatchObject({ path: "/api/v1/apps", query: { additionalFields: "auth_schemes" } });
    expect(reqs[1]).toMatchObject({ path: "/api/v2/actions", query: { apps: "github" } });
    expect(reqs[3]).toMatchObject({ path: "/api/v1/connectedAccounts", query: { appNames: "github" } });
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
        description: "Failed to load apps. Please check your API key and try again (Composio answered 401: Invalid API key provided)",
      },
    ]);
    const conns = await load("listConnections", badCred, { appName: "github" });
    expect(conns.status).toBe(502);
    expect(JSON.stringify(conns.body)).not.toContain(bad);
  });
});
