// Flowise's MCP presets that reach a remote server (pipedreamMCP, browserlessMCP, teradataMCP,
// supergatewayMCP) in a chatflow's Tool Agent: each builds the URL and headers Flowise builds, over
// customMCP's client, against the loopback MCP stand-in (test/standin/mcp.mjs) and Pipedream's
// (test/standin/pipedream.mjs); the canvas's Available Actions through POST /node-load-method.
import { describe, expect, inject, it } from "vitest";
import { callOf, toolAgentFlow } from "./agents-flows";
import { credential, makeCtx, marker, runFlow, runtimeWith } from "./helpers";
import { call } from "../helpers";
import { setVars } from "../security/helpers";

const mcpUrl = () => inject("mcpUrl");
const pdUrl = () => inject("pipedreamUrl");
const openAI = () => credential("openAIApi", { openAIApiKey: "sk-mcp-presets" });

type Call = { path?: string; tool: string; args: Record<string, unknown>; authorization?: string | null; headers?: Record<string, string> };
const callsAt = async (base: string, text: string): Promise<Call[]> =>
  (await fetch(`${base}/calls?contains=${encodeURIComponent(text)}`)).json();

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

describe("browserlessMCP", () => {
  it("reaches <BROWSERLESS_MCP_BASE_URL>/mcp with the API token as a bearer", async () => {
    const cred = await credential("browserlessApi", { browserlessApiToken: "mcp-secret" });
    const flow = await flowWith("browserlessMCP", { FLOWISE_CREDENTIAL_ID: cred, mcpActions: '["echo"]' });
    const m = marker();
    const runtime = runtimeWith({ BROWSERLESS_MCP_BASE_URL: `${mcpUrl()}/secure` });
    const result = await runFlow(flow, makeCtx(`${callOf("echo", { text: m })} ${m}`, { runtime }));
    expect(result.text).toBe(`tools said: mcp echo: ${m}`);
    expect(await callsAt(mcpUrl(), m)).toEqual([
      { path: "/secure/mcp", tool: "echo", args: { text: m }, authorization: "Bearer mcp-secret" },
    ]);
  });

  it("a private BROWSERLESS_MCP_BASE_URL is a 400 naming the var; a missing token is a 400", async () => {
    const cred = await credential("browserlessApi", { browserlessApiToken: "bl-secret-token" });
    const flow = await flowWith("browserlessMCP", { FLOWISE_CREDENTIAL_ID: cred, mcpActions: '["echo"]' });
    const runtime = runtimeWith({ BROWSERLESS_MCP_BASE_URL: "http://10.9.8.7" });
    const err = await failure(runFlow(flow, makeCtx("hi", { runtime })));
    expect(err).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^BROWSERLESS_MCP_BASE_URL refused by the outbound policy: /),
    });
    expect(err.message).not.toContain("bl-secret-token");
    const none = await failure(runFlow(await flowWith("browserlessMCP", { mcpActions: "[]" }), makeCtx("hi")));
    expect(none).toMatchObject({ status: 400, message: expect.stringMatching(/needs a browserlessApi credential/) });
  });

  it("the canvas's Available Actions: the server's tools, labels upper-case, sorted", async () => {
    const cred = await credential("browserlessApi", { browserlessApiToken: "mcp-secret" });
    const restore = setVars({ BROWSERLESS_MCP_BASE_URL: `${mcpUrl()}/secure` });
    try {
      const res = await call("POST", "/node-load-method/browserlessMCP", {
        body: { loadMethod: "listActions", credential: cred, inputs: {} },
      });
      expect(res.status).toBe(200);
      const options = (await res.json()) as { label: string; name: string }[];
      expect(options.map((o) => o.name)).toEqual(["add", "big", "echo", "fail"]);
      expect(options[2]).toEqual({ label: "ECHO", name: "echo", description: "Echoes the text back" });
    } finally {
      restore();
    }
  });
});

describe("teradataMCP", () => {
  const allowed = () => runtimeWith({ OUTBOUND_ALLOW: "127.0.0.1" });

  it("TD2 user and password as Basic; the node's Bearer Token overrides the credential", async () => {
    const td2 = await credential("teradataTD2Auth", { tdUsername: "dbc", tdPassword: "pässword" });
    const m = marker();
    const basic = await flowWith("teradataMCP", { FLOWISE_CREDENTIAL_ID: td2, mcpUrl: `${mcpUrl()}/mcp`, mcpActions: '["echo"]' });
    const result = await runFlow(basic, makeCtx(`${callOf("echo", { text: m })} ${m}`, { runtime: allowed() }));
    expect(result.text).toBe(`tools said: mcp echo: ${m}`);
    const expected = `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode("dbc:pässword")))}`;
    expect((await callsAt(mcpUrl(), m))[0]).toMatchObject({ path: "/mcp", tool: "echo", authorization: expected });

    const token = await credential("teradataBearerToken", { token: "wrong-token" });
    const inputs = { FLOWISE_CREDENTIAL_ID: token, bearerToken: "mcp-secret", mcpUrl: `${mcpUrl()}/secure/mcp`, mcpActions: ["echo"] };
    const n = marker();
    const bearer = await runFlow(
      await flowWith("teradataMCP", inputs),
      makeCtx(`${callOf("echo", { text: n })} ${n}`, { runtime: allowed() }),
    );
    expect(bearer.text).toBe(`tools said: mcp echo: ${n}`);
    expect((await callsAt(mcpUrl(), n))[0]).toMatchObject({ path: "/secure/mcp", authorization: "Bearer mcp-secret" });
  });

  it("no credentials: 400; a loopback URL without OUTBOUND_ALLOW: 400; a server refusing the token: 502 without it", async () => {
    const none = await failure(runFlow(await flowWith("teradataMCP", { mcpUrl: `${mcpUrl()}/mcp`, mcpActions: "[]" }), makeCtx("hi")));
    expect(none).toMatchObject({ status: 400, message: expect.stringMatching(/needs a Bearer Token, or a teradataBearerToken/) });
    const flow = await flowWith("teradataMCP", { bearerToken: "td-leaked-token", mcpUrl: `${mcpUrl()}/secure/mcp`, mcpActions: "[]" });
    const refused = await failure(runFlow(flow, makeCtx("hi")));
    expect(refused).toMatchObject({ status: 400, message: expect.stringMatching(/Outbound request refused: 127\.0\.0\.1 is a loopback/) });
    const denied = await failure(runFlow(flow, makeCtx("hi", { runtime: allowed() })));
    expect(denied.status).toBe(502);
    expect(denied.message).toMatch(/^teradataMCP \(teradataMCP_0\): the MCP server at 127\.0\.0\.1:\d+ failed/);
    expect(denied.message).not.toContain("td-leaked-token");
  });
});

describe("supergatewayMCP", () => {
  const allowed = () => runtimeWith({ OUTBOUND_ALLOW: "127.0.0.1" });

  it("--sse URL with --oauth2Bearer: the SSE server reached directly (no local supergateway)", async () => {
    const m = marker();
    const flow = await flowWith("supergatewayMCP", {
      arguments: `--sse "${mcpUrl()}/sse" --oauth2Bearer mcp-secret`,
      mcpActions: '["echo"]',
    });
    const result = await runFlow(flow, makeCtx(`${callOf("echo", { text: m })} ${m}`, { runtime: allowed() }));
    expect(result.text).toBe(`tools said: mcp echo: ${m}`);
    expect((await callsAt(mcpUrl(), m))[0]).toMatchObject({ path: "/sse", authorization: "Bearer mcp-secret" });
  });

  it("--streamableHttp URL with a quoted --header", async () => {
    const m = marker();
    const args = `--streamableHttp '${mcpUrl()}/secure/mcp' --logLevel none --header "Authorization: Bearer mcp-secret"`;
    const flow = await flowWith("supergatewayMCP", { arguments: args, mcpActions: '["echo"]' });
    const result = await runFlow(flow, makeCtx(`${callOf("echo", { text: m })} ${m}`, { runtime: allowed() }));
    expect(result.text).toBe(`tools said: mcp echo: ${m}`);
    expect((await callsAt(mcpUrl(), m))[0]).toMatchObject({ path: "/secure/mcp", authorization: "Bearer mcp-secret" });
  });

  it("--stdio and arguments without a URL are 400s saying why", async () => {
    const stdio = await flowWith("supergatewayMCP", { arguments: '--stdio "uvx mcp-server-git"', mcpActions: "[]" });
    expect(await failure(runFlow(stdio, makeCtx("hi")))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/--stdio starts a local process: Workers cannot start processes/),
    });
    const none = await flowWith("supergatewayMCP", { arguments: "--port 8000", mcpActions: "[]" });
    expect(await failure(runFlow(none, makeCtx("hi")))).toMatchObject({ status: 400, message: expect.stringMatching(/need --sse/) });
  });
});

describe("pipedreamMCP", () => {
  const vars = () => ({ PIPEDREAM_BASE_URL: pdUrl(), PIPEDREAM_MCP_BASE_URL: pdUrl() });
  const pdCredential = (clientSecret = "pd-secret") =>
    credential("pipedreamOAuthApi", { clientId: "pd-client", clientSecret, projectId: "proj_1", oauthScopes: "connect:*" });

  it("a client-credentials token, then the remote MCP server with the project, environment, user, app and mode headers", async () => {
    const cred = await pdCredential();
    const m = marker();
    const inputs = {
      FLOWISE_CREDENTIAL_ID: cred,
      environment: "production",
      appSlug: "slack,notion",
      externalUserId: "{{$vars.pd_user}}",
      mcpActions: '["echo", "connect"]',
    };
    const user = `u-${m}`.slice(0, 40);
    const ctx = makeCtx(`${callOf("echo", { text: m })} ${callOf("connect", { note: m })} ${m}`, {
      runtime: runtimeWith(vars()),
      vars: { pd_user: user },
    });
    const result = await runFlow(await flowWith("pipedreamMCP", inputs), ctx);
    expect(result.usedTools?.[0]).toMatchObject({ tool: "echo", toolOutput: `pd echo: ${m}` });
    // An account not connected yet: Flowise's ACTION_REQUIRED text with the Connect link, for the model to pass on.
    expect(result.usedTools?.[1].toolOutput).toMatch(
      /^ACTION_REQUIRED: Account connection needed\.[\s\S]*\[Connect URL\]\(https:\/\/pipedream\.com\/_static\/connect\.html\?token=ctok_1&connectLink=true&app=slack\)/,
    );
    const calls = await callsAt(pdUrl(), m);
    expect(calls.map((c) => c.tool)).toEqual(["echo", "connect"]);
    expect(calls[0].headers).toEqual({
      authorization: expect.stringMatching(/^Bearer pd-at-\d+$/),
      "x-pd-project-id": "proj_1",
      "x-pd-environment": "production",
      "x-pd-external-user-id": user,
      "x-pd-app-slug": "slack,notion",
      "x-pd-tool-mode": "tools-only",
    });
  });

  it("a wrong client secret is a 502 with Pipedream's message, never the secret; a bad slug a 400", async () => {
    const cred = await pdCredential("pd-wrong-secret-value");
    const inputs = { FLOWISE_CREDENTIAL_ID: cred, appSlug: "slack", externalUserId: "someone@example.com", mcpActions: "[]" };
    const err = await failure(runFlow(await flowWith("pipedreamMCP", inputs), makeCtx("hi", { runtime: runtimeWith(vars()) })));
    expect(err.status).toBe(502);
    expect(err.message).toMatch(/Pipedream OAuth token request failed: Pipedream answered 401: invalid_client/);
    expect(err.message).not.toContain("pd-wrong-secret-value");
    const bad = await flowWith("pipedreamMCP", { ...inputs, FLOWISE_CREDENTIAL_ID: await pdCredential(), appSlug: "Slack!" });
    expect(await failure(runFlow(bad, makeCtx("hi", { runtime: runtimeWith(vars()) })))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/App Slug must be lowercase/),
    });
  });

  it("Available Actions: Flowise's hint before App Slug and User ID, then the app's tools ({{$flow.*}} as a preview user)", async () => {
    const cred = await pdCredential();
    const restore = setVars(vars());
    try {
      const load = (inputs: Record<string, unknown>) =>
        call("POST", "/node-load-method/pipedreamMCP", { body: { loadMethod: "listActions", credential: cred, inputs } });
      expect(await (await load({ appSlug: "slack" })).json()).toEqual([
        expect.objectContaining({ label: "Please fill in App Slug and User ID first", name: "placeholder" }),
      ]);
      const res = await load({ appSlug: "slack", externalUserId: "{{$flow.sessionId}}" });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { name: string; label: string }[]).map((o) => o.label)).toEqual(["CONNECT", "ECHO"]);
      // A node not set up right: Flowise's single `error` option, saying why.
      expect(await (await load({ appSlug: "Bad Slug", externalUserId: "x" })).json()).toEqual([
        { label: "No Available Actions", name: "error", description: expect.stringMatching(/App Slug must be lowercase/) },
      ]);
    } finally {
      restore();
    }
  });
});
