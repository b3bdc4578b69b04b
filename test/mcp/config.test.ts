// /mcp-server/{id}: Flowise 3.1.4's shapes and validation, the token hashed at rest and shown by
// POST and refresh only, the config permissions, and the row going with its chatflow.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectError, json, uuid } from "../helpers";
import { enableMcp, INITIALIZE, rpc } from "./helpers";

const saveFlow = async (type = "CHATFLOW", name = "Config flow") =>
  (await json("POST", "/chatflows", { body: { name, type, flowData: JSON.stringify({ nodes: [], edges: [] }) } })).id as string;

const newKey = async (permissions: string[] | null, chatflows: string[] | null = null) =>
  (await json("POST", "/apikey", { body: { keyName: `mcp ${uuid()}`, permissions, chatflows } })).apiKey as string;

describe("/mcp-server/{id}", () => {
  it("never configured: GET answers Flowise's empty config; PUT and refresh are 404; DELETE is fine", async () => {
    const id = await saveFlow();
    expect(await json("GET", `/mcp-server/${id}`)).toEqual({ enabled: false, token: "", description: "", toolName: "" });
    expect((await expectError(await call("PUT", `/mcp-server/${id}`, { body: { enabled: true } }), 404)).message).toBe(
      `MCP server config not found for ID: ${id}`,
    );
    expect((await expectError(await call("POST", `/mcp-server/${id}/refresh`), 404)).message).toBe(
      `MCP server config not found for ID: ${id}`,
    );
    expect(await json("DELETE", `/mcp-server/${id}`)).toEqual({ message: "MCP server config disabled" });
  });

  it("POST validates as Flowise (the first failing rule), then enables with a 32-hex token shown once; GET masks it; D1 holds only its hash", async () => {
    const id = await saveFlow();
    const bad = async (body: unknown) => (await expectError(await call("POST", `/mcp-server/${id}`, { body }), 400)).message;
    expect(await bad({ description: "d" })).toBe("toolName is required");
    expect(await bad({ toolName: "", description: "d" })).toBe("toolName is required");
    expect(await bad({ toolName: "has space", description: "d" })).toBe(
      "toolName must contain only alphanumeric characters, underscores, and hyphens",
    );
    expect(await bad({ toolName: "a".repeat(65), description: "d" })).toBe("toolName must be 64 characters or less");
    expect(await bad({ toolName: "ok" })).toBe("description is required");
    expect(await bad({ toolName: "ok", description: "" })).toBe("description is required");

    const created = await enableMcp(id, { toolName: "my-tool_1", description: "Does things" });
    expect(created).toEqual({
      enabled: true,
      token: expect.stringMatching(/^[0-9a-f]{32}$/),
      toolName: "my-tool_1",
      description: "Does things",
    });
    const shown = await json("GET", `/mcp-server/${id}`);
    expect(shown).toEqual({ ...created, token: `${created.token.slice(0, 4)}…${created.token.slice(-4)}` });
    const row = await env.DB.prepare("SELECT * FROM mcp_server WHERE chatflowId = ?").bind(id).first<Record<string, unknown>>();
    expect(JSON.stringify(row)).not.toContain(created.token);
    expect(row!.tokenHash).toMatch(/^[0-9a-f]{64}$/);

    // POST on an enabled config answers it as it is (before looking at the body), token masked.
    const again = await call("POST", `/mcp-server/${id}`, { body: { toolName: "bad name!" } });
    expect(again.status).toBe(201);
    expect(await again.json()).toEqual(shown);
  });

  it("PUT changes toolName, description, enabled (validated); DELETE disables; PUT enabled:true keeps the token; POST after a disable issues a new one", async () => {
    const id = await saveFlow();
    const { token } = await enableMcp(id);
    expect((await expectError(await call("PUT", `/mcp-server/${id}`, { body: { toolName: "no spaces please" } }), 400)).message).toBe(
      "toolName must contain only alphanumeric characters, underscores, and hyphens",
    );
    expect((await expectError(await call("PUT", `/mcp-server/${id}`, { body: { description: "" } }), 400)).message).toBe(
      "description cannot be empty",
    );
    expect(await json("PUT", `/mcp-server/${id}`, { body: { toolName: "renamed", description: "New words" } })).toMatchObject({
      enabled: true,
      toolName: "renamed",
      description: "New words",
    });

    expect(await json("DELETE", `/mcp-server/${id}`)).toEqual({ message: "MCP server config disabled" });
    expect(await json("GET", `/mcp-server/${id}`)).toMatchObject({ enabled: false, toolName: "renamed" });
    expect((await rpc(`/mcp/${id}`, INITIALIZE, { authorization: `Bearer ${token}` })).status).toBe(404);

    await json("PUT", `/mcp-server/${id}`, { body: { enabled: true } });
    expect((await rpc(`/mcp/${id}`, INITIALIZE, { authorization: `Bearer ${token}` })).status).toBe(200);

    await json("DELETE", `/mcp-server/${id}`);
    const reenabled = await enableMcp(id, { toolName: "fresh", description: "again" });
    expect(reenabled.token).not.toBe(token);
    expect((await rpc(`/mcp/${id}`, INITIALIZE, { authorization: `Bearer ${token}` })).status).toBe(401);
    expect((await rpc(`/mcp/${id}`, INITIALIZE, { authorization: `Bearer ${reenabled.token}` })).status).toBe(200);
  });

  it("refresh: a new token in full; the old one stops working at once", async () => {
    const id = await saveFlow();
    const { token } = await enableMcp(id);
    const refreshed = await json("POST", `/mcp-server/${id}/refresh`);
    expect(refreshed).toMatchObject({ enabled: true, token: expect.stringMatching(/^[0-9a-f]{32}$/), toolName: "ask_flow" });
    expect(refreshed.token).not.toBe(token);
    expect((await rpc(`/mcp/${id}`, INITIALIZE, { authorization: `Bearer ${token}` })).status).toBe(401);
    expect((await rpc(`/mcp/${id}`, INITIALIZE, { authorization: `Bearer ${refreshed.token}` })).status).toBe(200);
  });

  it("a flow that does not exist: 404 naming it; a malformed id: 400", async () => {
    const id = uuid();
    expect((await expectError(await call("GET", `/mcp-server/${id}`), 404)).message).toBe(`Chatflow ${id} not found`);
    expect((await expectError(await call("POST", `/mcp-server/${id}`, { body: { toolName: "t", description: "d" } }), 404)).message).toBe(
      `Chatflow ${id} not found`,
    );
    await expectError(await call("GET", "/mcp-server/not-an-id"), 400);
  });

  it("permissions: chatflows:config for chatflows, agentflows:config for agentflows, within the key's chatflow limit; 401 without a key", async () => {
    const chatflow = await saveFlow();
    const agentflow = await saveFlow("AGENTFLOW", "Config agentflow");
    const chatOnly = await newKey(["chatflows:config"]);
    expect((await call("GET", `/mcp-server/${chatflow}`, { token: chatOnly })).status).toBe(200);
    expect((await expectError(await call("GET", `/mcp-server/${agentflow}`, { token: chatOnly }), 403)).message).toContain(
      '"agentflows:config"',
    );
    const agentOnly = await newKey(["agentflows:config"]);
    expect((await call("POST", `/mcp-server/${agentflow}`, { token: agentOnly, body: { toolName: "a", description: "b" } })).status).toBe(
      201,
    );
    await expectError(await call("POST", `/mcp-server/${chatflow}`, { token: agentOnly, body: { toolName: "a", description: "b" } }), 403);
    const viewer = await newKey(["chatflows:view", "chatflows:update"]);
    expect((await expectError(await call("GET", `/mcp-server/${chatflow}`, { token: viewer }), 403)).message).toBe(
      'Forbidden: this API key lacks the permission "chatflows:config" or "agentflows:config"',
    );
    const elsewhere = await newKey(["chatflows:config"], [await saveFlow()]);
    expect((await expectError(await call("GET", `/mcp-server/${chatflow}`, { token: elsewhere }), 403)).message).toBe(
      "Forbidden: this API key is limited to other chatflows",
    );
    await expectError(await call("GET", `/mcp-server/${chatflow}`, { token: null }), 401);
    const catalogue = await json("GET", "/auth/permissions/API_KEY");
    expect(catalogue.chatflows.map((p: { key: string }) => p.key)).toContain("chatflows:config");
    expect(catalogue.agentflows.map((p: { key: string }) => p.key)).toContain("agentflows:config");
  });

  it("deleting the chatflow deletes its MCP config", async () => {
    const id = await saveFlow();
    await enableMcp(id);
    await json("DELETE", `/chatflows/${id}`);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM mcp_server WHERE chatflowId = ?").bind(id).first("n")).toBe(0);
  });
});
