// /custom-mcp-servers (the Tools page's MCP Servers) against the loopback MCP server
// (test/standin/mcp.mjs): registered PENDING, authorized (its tools listed and kept) or ERROR with the
// reason; headers sealed and never answered, the URL answered as its origin; a masked value sent back
// keeps the stored one; a new address forgets the tools. The customMcpServerTool node offers the kept
// tools to an agent, and its calls reach the server with the stored headers.
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { call, expectError, json, uuid } from "../helpers";
import { setVars } from "../security/helpers";
import { callOf, toolAgentFlow } from "../engine/agents-flows";
import { marker, runtimeWith } from "../engine/helpers";
import { agent, node as afNode, edge, graph, run, start } from "../agentflow/helpers";
import { openAICredential } from "../security/helpers";

const mcpUrl = () => inject("mcpUrl");
const REDACTED = "************";

interface Server {
  id: string;
  name: string;
  serverUrl: string;
  status: string;
  toolCount: number;
  authType: string;
  tools?: string | null;
  authConfig?: { headers?: Record<string, string> };
}

const create = (body: Record<string, unknown>) =>
  json<Server>("POST", "/custom-mcp-servers", { body: { name: `mcp-${uuid().slice(0, 8)}`, ...body } });
const authorize = (id: string) => call("POST", `/custom-mcp-servers/${id}/authorize`);
const load = (loadMethod: string, inputs: Record<string, unknown> = {}) =>
  json<Array<{ label: string; name: string; description?: string }>>("POST", "/node-load-method/customMcpServerTool", {
    body: { loadMethod, inputs },
  });
const callsWith = async (text: string): Promise<Array<{ path: string; tool: string; args: unknown; authorization: string | null }>> =>
  (await fetch(`${mcpUrl()}/calls?contains=${encodeURIComponent(text)}`)).json();

describe("/custom-mcp-servers", () => {
  let restore: () => void;
  beforeAll(() => {
    restore = setVars({ OUTBOUND_ALLOW: new URL(mcpUrl()).host });
  });
  afterAll(() => restore());

  it("registers PENDING with the URL answered as its origin; authorize keeps the tools it lists", async () => {
    const server = await create({ serverUrl: `${mcpUrl()}/mcp`, color: "#123456" });
    expect(server).toMatchObject({ status: "PENDING", toolCount: 0, authType: "NONE", color: "#123456" });
    expect(server.serverUrl).toBe(`${new URL(mcpUrl()).origin}/${REDACTED}`);
    expect(server).not.toHaveProperty("authConfig");
    expect(await json("GET", `/custom-mcp-servers/${server.id}/tools`)).toEqual([]);

    const res = await authorize(server.id);
    expect(res.status).toBe(200);
    const authorized = (await res.json()) as Server;
    expect(authorized).toMatchObject({ id: server.id, status: "AUTHORIZED", toolCount: 4 });
    const listed = JSON.parse(authorized.tools!) as { tools: Array<{ name: string; inputSchema: unknown }> };
    expect(listed.tools.map((t) => t.name).sort()).toEqual(["add", "big", "echo", "fail"]);

    const tools = await json<Array<{ name: string; description: string; inputSchema: { properties: Record<string, unknown> } }>>(
      "GET",
      `/custom-mcp-servers/${server.id}/tools`,
    );
    expect(tools.find((t) => t.name === "echo")).toMatchObject({
      description: "Echoes the text back",
      inputSchema: { properties: { text: {} } },
    });
    const got = await json<Server>("GET", `/custom-mcp-servers/${server.id}`);
    expect(got).toMatchObject({ status: "AUTHORIZED", toolCount: 4, serverUrl: server.serverUrl });
    expect(JSON.parse(got.tools!)).toEqual(listed);

    const all = await json<Server[]>("GET", "/custom-mcp-servers");
    const inList = all.find((s) => s.id === server.id)!;
    expect(inList).toMatchObject({ status: "AUTHORIZED", toolCount: 4 });
    expect(inList).not.toHaveProperty("tools"); // a list leaves the tools out
    const page = await json<{ data: Server[]; total: number }>("GET", "/custom-mcp-servers?page=1&limit=1");
    expect(page.data).toHaveLength(1);
    expect(page.total).toBeGreaterThanOrEqual(1);
  });

  it("headers are sealed: never answered, never stored readable, sent to the server; a masked value sent back keeps them", async () => {
    const server = await create({
      serverUrl: `${mcpUrl()}/secure/mcp`,
      authType: "CUSTOM_HEADERS",
      authConfig: { headers: { Authorization: "Bearer mcp-secret" } },
    });
    const row = await env.DB.prepare("SELECT authConfig FROM custom_mcp_server WHERE id = ?")
      .bind(server.id)
      .first<{ authConfig: string }>();
    expect(row?.authConfig).toBeTruthy();
    expect(row?.authConfig).not.toContain("mcp-secret");
    expect((await json<Server>("GET", `/custom-mcp-servers/${server.id}`)).authConfig).toEqual({ headers: { Authorization: REDACTED } });

    expect(((await (await authorize(server.id)).json()) as Server).status).toBe("AUTHORIZED");

    // The edit dialog sends back what it was shown: the masked URL and header keep the stored ones.
    const renamed = await json<Server>("PUT", `/custom-mcp-servers/${server.id}`, {
      body: {
        name: "renamed",
        serverUrl: server.serverUrl,
        authType: "CUSTOM_HEADERS",
        authConfig: { headers: { Authorization: REDACTED } },
      },
    });
    expect(renamed).toMatchObject({ name: "renamed", status: "AUTHORIZED", toolCount: 4 });
    expect(((await (await authorize(server.id)).json()) as Server).status).toBe("AUTHORIZED");

    const half = await call("PUT", `/custom-mcp-servers/${server.id}`, {
      body: { authType: "CUSTOM_HEADERS", authConfig: { headers: { Authorization: `Bearer ${REDACTED}x` } } },
    });
    expect((await expectError(half, 400)).message).toMatch(/masked placeholder/);
    const url = await call("PUT", `/custom-mcp-servers/${server.id}`, { body: { serverUrl: `${mcpUrl()}/${REDACTED}/x` } });
    expect((await expectError(url, 400)).message).toMatch(/masked placeholder/);
  });

  it("a server that refuses or is down: ERROR and the reason; a new address or new headers make it PENDING again", async () => {
    const server = await create({ serverUrl: `${mcpUrl()}/secure/mcp` }); // no Authorization: the server answers 401
    const failed = await expectError(await authorize(server.id), 502);
    expect(failed.message).toMatch(/^Failed to connect to Custom MCP server: the MCP server at 127\.0\.0\.1:\d+ failed/);
    expect((await json<Server>("GET", `/custom-mcp-servers/${server.id}`)).status).toBe("ERROR");

    const fixed = await json<Server>("PUT", `/custom-mcp-servers/${server.id}`, {
      body: { authType: "CUSTOM_HEADERS", authConfig: { headers: { Authorization: "Bearer mcp-secret" } } },
    });
    expect(fixed.status).toBe("PENDING");
    expect(((await (await authorize(server.id)).json()) as Server).status).toBe("AUTHORIZED");

    const moved = await json<Server>("PUT", `/custom-mcp-servers/${server.id}`, { body: { serverUrl: `${mcpUrl()}/mcp` } });
    expect(moved).toMatchObject({ status: "PENDING", toolCount: 0 });
    expect(await json("GET", `/custom-mcp-servers/${server.id}/tools`)).toEqual([]);
  });

  it("an edit while authorizing wins: the authorize answers 409 and lands nothing (no tools listed at the old address)", async () => {
    const server = await create({ serverUrl: `${mcpUrl()}/slow/mcp` });
    const authorizing = authorize(server.id);
    await new Promise((r) => setTimeout(r, 200));
    await json("PUT", `/custom-mcp-servers/${server.id}`, { body: { serverUrl: `${mcpUrl()}/mcp` } });
    expect((await expectError(await authorizing, 409)).message).toMatch(/changed while it was being authorized/);
    expect(await json("GET", `/custom-mcp-servers/${server.id}`)).toMatchObject({ status: "PENDING", toolCount: 0, tools: null });
  });

  it("bad input: clear 400s before anything is stored; unknown ids 404", async () => {
    const before = await env.DB.prepare("SELECT count(*) AS n FROM custom_mcp_server").first<{ n: number }>();
    const bad = (body: Record<string, unknown>) => call("POST", "/custom-mcp-servers", { body: { name: "bad", ...body } });
    expect((await expectError(await bad({ serverUrl: "not a url" }), 400)).message).toMatch(/not a valid URL/);
    expect((await expectError(await bad({ serverUrl: "ftp://example.com/mcp" }), 400)).message).toMatch(/only http and https/);
    expect((await expectError(await bad({ serverUrl: "http://169.254.169.254/mcp" }), 400)).message).toMatch(/refused/i);
    await expectError(
      await bad({ serverUrl: `${mcpUrl()}/mcp`, authType: "CUSTOM_HEADERS", authConfig: { headers: { "Bad Name": "x" } } }),
      400,
    );
    await expectError(
      await bad({ serverUrl: `${mcpUrl()}/mcp`, authType: "CUSTOM_HEADERS", authConfig: { headers: { X: "a\r\nb" } } }),
      400,
    );
    await expectError(await bad({ serverUrl: `${mcpUrl()}/mcp`, authType: "OAUTH" }), 400);
    const after = await env.DB.prepare("SELECT count(*) AS n FROM custom_mcp_server").first<{ n: number }>();
    expect(after?.n).toBe(before?.n);

    const unknown = uuid();
    for (const [method, path] of [
      ["GET", `/custom-mcp-servers/${unknown}`],
      ["GET", `/custom-mcp-servers/${unknown}/tools`],
      ["POST", `/custom-mcp-servers/${unknown}/authorize`],
      ["PUT", `/custom-mcp-servers/${unknown}`],
      ["DELETE", `/custom-mcp-servers/${unknown}`],
    ]) {
      await expectError(await call(method, path, method === "PUT" ? { body: { name: "x" } } : {}), 404);
    }
    const server = await create({ serverUrl: `${mcpUrl()}/mcp` });
    expect(await json("DELETE", `/custom-mcp-servers/${server.id}`)).toEqual({ deleted: 1 });
    await expectError(await call("GET", `/custom-mcp-servers/${server.id}`), 404);
  });

  it("needs the tools permissions", async () => {
    await expectError(await call("GET", "/custom-mcp-servers", { token: null }), 401);
    const key = await json<{ apiKey: string }>("POST", "/apikey", { body: { keyName: `mcp-view-${uuid()}`, permissions: ["tools:view"] } });
    const token = key.apiKey;
    expect((await call("GET", "/custom-mcp-servers", { token })).status).toBe(200);
    await expectError(await call("POST", "/custom-mcp-servers", { token, body: { name: "x", serverUrl: `${mcpUrl()}/mcp` } }), 403);
  });
});

describe("the customMcpServerTool node", () => {
  let restore: () => void;
  beforeAll(() => {
    restore = setVars({ OUTBOUND_ALLOW: new URL(mcpUrl()).host });
  });
  afterAll(() => restore());

  it("the canvas lists authorized servers and the tools each listed; an agent calls them with the stored headers", async () => {
    const pending = await create({ serverUrl: `${mcpUrl()}/mcp` });
    const server = await create({
      serverUrl: `${mcpUrl()}/secure/mcp`,
      authType: "CUSTOM_HEADERS",
      authConfig: { headers: { Authorization: "Bearer mcp-secret" } },
    });
    await authorize(server.id);

    const servers = await load("listServers");
    expect(servers).toContainEqual({ label: server.name, name: server.id, description: server.serverUrl });
    expect(servers.map((s) => s.name)).not.toContain(pending.id);
    const actions = await load("listActions", { mcpServerId: server.id });
    expect(actions.map((a) => a.name)).toEqual(["add", "big", "echo", "fail"]);
    expect(actions.find((a) => a.name === "echo")).toEqual({ label: "ECHO", name: "echo", description: "Echoes the text back" });
    const hint = [{ label: "No Available Actions", name: "error", description: "Select an authorized MCP server first, then refresh" }];
    expect(await load("listActions", {})).toEqual(hint);
    expect(await load("listActions", { mcpServerId: pending.id })).toEqual(hint); // not authorized
    const agentTools = await json<Array<{ name: string }>>("POST", "/node-load-method/agentAgentflow", {
      body: { loadMethod: "listTools" },
    });
    expect(agentTools.map((t) => t.name)).toEqual(expect.arrayContaining(["customMCP", "customMcpServerTool"]));

    const credential = await openAICredential("sk-mcp-server");
    const flowData = toolAgentFlow({
      credential,
      calculator: false,
      memory: false,
      nodes: [{ id: "customMcpServerTool_0", name: "customMcpServerTool", inputs: { mcpServerId: server.id, mcpActions: '["echo"]' } }],
    });
    const flow = await json<{ id: string }>("POST", "/chatflows", { body: { name: `mcp-server-flow-${uuid()}`, flowData } });
    const m = marker();
    const answer = await json<{ text: string; usedTools: unknown[] }>("POST", `/prediction/${flow.id}`, {
      body: { question: `${callOf("echo", { text: m })} ${m}` },
    });
    expect(answer.text).toBe(`tools said: mcp echo: ${m}`);
    expect(await callsWith(m)).toEqual([{ path: "/secure/mcp", tool: "echo", args: { text: m }, authorization: "Bearer mcp-secret" }]);

    // Not authorized (a new address) or gone: the run is refused with the reason, nothing called.
    await json("PUT", `/custom-mcp-servers/${server.id}`, { body: { serverUrl: `${mcpUrl()}/mcp` } });
    const refused = await call("POST", `/prediction/${flow.id}`, { body: { question: `${callOf("echo", { text: "x" })} ${marker()}` } });
    expect((await expectError(refused, 400)).message).toMatch(/is not authorized\. Authorize it on the Tools page first/);
    await json("DELETE", `/custom-mcp-servers/${server.id}`);
    const gone = await call("POST", `/prediction/${flow.id}`, { body: { question: "hi" } });
    expect((await expectError(gone, 400)).message).toMatch(new RegExp(`MCP server ${server.id} not found`));
  });
  it("in an agentflow: an Agent node's tool and a Tool node's, from the kept schemas, with the stored headers", async () => {
    const server = await create({
      serverUrl: `${mcpUrl()}/secure/mcp`,
      authType: "CUSTOM_HEADERS",
      authConfig: { headers: { Authorization: "Bearer mcp-secret" } },
    });
    await authorize(server.id);
    const runtime = runtimeWith({ OUTBOUND_ALLOW: "127.0.0.1" });

    const agentTool = {
      agentSelectedTool: "customMcpServerTool",
      agentSelectedToolConfig: { mcpServerId: server.id, mcpActions: '["add"]' },
    };
    const g = graph(
      [start(), agent("agentAgentflow_0", { agentTools: [agentTool] }, "Agent 0")],
      [edge("startAgentflow_0", "agentAgentflow_0")],
    );
    const out = await run(g, { question: `${callOf("add", { a: 1, b: 2 })} ${marker()}` }, { ctx: { runtime } });
    expect(out).toMatchObject({ state: "FINISHED", text: "tools said: 3" });

    const m = marker();
    const tool = afNode("toolAgentflow_0", {
      toolAgentflowSelectedTool: "customMcpServerTool",
      toolAgentflowSelectedToolConfig: { mcpServerId: server.id, mcpActions: '["echo"]' },
      toolInputArgs: [{ inputArgName: "text", inputArgValue: m }],
    });
    const done = await run(graph([start(), tool], [edge("startAgentflow_0", "toolAgentflow_0")]), { question: "go" }, { ctx: { runtime } });
    expect(done).toMatchObject({ state: "FINISHED", text: `mcp echo: ${m}` });
    expect(await callsWith(m)).toEqual([{ path: "/secure/mcp", tool: "echo", args: { text: m }, authorization: "Bearer mcp-secret" }]);
  });
});
