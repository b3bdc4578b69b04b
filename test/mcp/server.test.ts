// POST /mcp/{chatflowId}: a chatflow and an agentflow as MCP servers, through the SDK's own client.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, flowDataOf, pointAtStandin } from "../engine/helpers";
import { BASE, json } from "../helpers";
import { setVars, standinRequests } from "../security/helpers";
import { afEdge, approvalFlow, llm, messagesOf, openAICredential, saveAgentflowOf, start } from "../agentflow-api/flows";
import { INITIALIZE, enableMcp, mcpClient, rpc, textOf, workerFetch } from "./helpers";

const marker = () => `m${crypto.randomUUID().slice(0, 8)}`;

async function saveChatflow(name = "Socks namer"): Promise<string> {
  const cred = await openAICredential();
  const flowData = flowDataOf(llmChain as unknown as Fixture, (nodes) => {
    for (const node of nodes.values()) if (node.data.category === "Chat Models") pointAtStandin(node, cred);
  });
  return (await json("POST", "/chatflows", { body: { name, flowData } })).id;
}

describe("POST /mcp/{chatflowId} with the SDK client", () => {
  it("a chatflow: initialize, tools/list, tools/call; the answer is the flow's; messages stored with chatType MCP", async () => {
    const id = await saveChatflow();
    const { token } = await enableMcp(id, { toolName: "name_company", description: "Names a company" });
    const client = await mcpClient(`/mcp/${id}`, token);
    expect(client.getServerVersion()?.name).toBe("edgeflow-name_company");
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({
      name: "name_company",
      description: "Names a company",
      inputSchema: { type: "object", required: ["question"] },
    });
    const m = marker();
    const result = await client.callTool({ name: "name_company", arguments: { question: `socks ${m}` } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain(`What is a good name for a company that makes socks ${m}?`);
    const stored = await messagesOf(id);
    expect(stored.map((x) => [x.role, x.chatType])).toEqual([
      ["userMessage", "MCP"],
      ["apiMessage", "MCP"],
    ]);
    expect(stored[0].content).toBe(`socks ${m}`);
    await client.close();
  });

  it("an agentflow: the tool runs it; a new chat per call", async () => {
    const cred = await openAICredential();
    const { id } = await saveAgentflowOf([start(), llm("llmAgentflow_0", cred)], [afEdge("startAgentflow_0", "llmAgentflow_0")]);
    const { token } = await enableMcp(id);
    const client = await mcpClient(`/mcp/${id}`, token);
    const m = marker();
    expect(textOf(await client.callTool({ name: "ask_flow", arguments: { question: `one ${m}` } }))).toBe(`echo: one ${m}`);
    expect(textOf(await client.callTool({ name: "ask_flow", arguments: { question: `two ${m}` } }))).toBe(`echo: two ${m}`);
    const stored = await messagesOf(id);
    expect(stored.map((x) => x.chatType)).toEqual(["MCP", "MCP", "MCP", "MCP"]);
    expect(new Set(stored.map((x) => x.chatId)).size).toBe(2);
    await client.close();
  });
});

describe("POST /mcp/{chatflowId}: Flowise's refusals, and the rules beyond them", () => {
  const UNAUTHORIZED = { jsonrpc: "2.0", error: { code: -32001, message: "Unauthorized" }, id: null };
  const NOT_FOUND = { jsonrpc: "2.0", error: { code: -32001, message: "MCP server not found" }, id: null };

  it("a missing or wrong token: 401 with the JSON-RPC body; the SDK client fails to connect", async () => {
    const id = await saveChatflow();
    const { token } = await enableMcp(id);
    for (const headers of [
      {} as Record<string, string>,
      { authorization: "Bearer wrong" },
      { authorization: `Bearer ${token}x` },
      { authorization: `Basic ${token}` },
    ]) {
      const res = await rpc(`/mcp/${id}`, INITIALIZE, headers);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual(UNAUTHORIZED);
    }
    await expect(mcpClient(`/mcp/${id}`, "0".repeat(32))).rejects.toThrow(/"Unauthorized"/);
  });

  it("disabled, unknown or malformed flow: 404 'MCP server not found'", async () => {
    const id = await saveChatflow();
    const { token } = await enableMcp(id);
    await json("DELETE", `/mcp-server/${id}`);
    for (const path of [`/mcp/${id}`, `/mcp/${crypto.randomUUID()}`, "/mcp/not-a-flow"]) {
      const res = await rpc(path, INITIALIZE, { authorization: `Bearer ${token}` });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual(NOT_FOUND);
    }
  });

  it("GET and DELETE: 405 (stateless: no stream, no session)", async () => {
    const id = await saveChatflow();
    const { token } = await enableMcp(id);
    const get = await workerFetch(`${BASE}/mcp/${id}`, { headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(await get.json()).toEqual({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed." }, id: null });
    const del = await workerFetch(`${BASE}/mcp/${id}`, { method: "DELETE", headers: { authorization: `Bearer ${token}` } });
    expect(del.status).toBe(405);
    expect(await del.json()).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Session termination is not supported in stateless mode." },
      id: null,
    });
    expect((await workerFetch(`${BASE}/mcp`, { method: "GET" })).status).toBe(405);
  });

  it("a browser Origin that MCP_CORS_ORIGINS does not list: 403, and nothing runs; a listed one works (with CORS headers)", async () => {
    const id = await saveChatflow();
    const { token } = await enableMcp(id);
    const m = marker();
    const callBody = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "ask_flow", arguments: { question: `evil ${m}` } } };
    const refused = await rpc(`/mcp/${id}`, callBody, { authorization: `Bearer ${token}`, origin: "https://evil.example" });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      jsonrpc: "2.0",
      error: { code: -32000, message: expect.stringContaining("https://evil.example") },
      id: null,
    });
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    expect(await standinRequests(m)).toHaveLength(0);
    expect(await messagesOf(id)).toHaveLength(0);

    const restore = setVars({ MCP_CORS_ORIGINS: "https://app.example" });
    try {
      const ok = await rpc(`/mcp/${id}`, callBody, { authorization: `Bearer ${token}`, origin: "https://app.example" });
      expect(ok.status).toBe(200);
      expect(ok.headers.get("access-control-allow-origin")).toBe("https://app.example");
      expect(((await ok.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text).toContain(`evil ${m}`);
      const preflight = await workerFetch(`${BASE}/mcp/${id}`, {
        method: "OPTIONS",
        headers: {
          origin: "https://app.example",
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type, mcp-protocol-version",
        },
      });
      expect(preflight.headers.get("access-control-allow-headers")).toContain("mcp-protocol-version");
    } finally {
      restore();
    }
  });

  it("refresh: a connected client's old token stops working at once", async () => {
    const id = await saveChatflow();
    const { token } = await enableMcp(id);
    const client = await mcpClient(`/mcp/${id}`, token);
    await json("POST", `/mcp-server/${id}/refresh`);
    await expect(client.listTools()).rejects.toThrow(/"Unauthorized"/);
    await client.close();
  });

  it("the tool's default name and description come from the flow's name (Flowise's rule)", async () => {
    const id = await saveChatflow("  Ask the Docs: v2!! ");
    await json("POST", `/mcp-server/${id}`, { body: { toolName: "tmp", description: "tmp" } }, 201);
    // A config whose name and description were cleared in storage (Flowise allows configs without them).
    await env.DB.prepare("UPDATE mcp_server SET toolName = '', description = '' WHERE chatflowId = ?").bind(id).run();
    const { token } = await json("POST", `/mcp-server/${id}/refresh`);
    const client = await mcpClient(`/mcp/${id}`, token);
    expect((await client.listTools()).tools[0]).toMatchObject({
      name: "ask_the_docs_v2",
      description: 'Execute the "Ask the Docs: v2!!" flow',
    });
    await client.close();
  });

  it("a failed run: isError with the scrubbed message; nothing stored", async () => {
    const id = await saveChatflow();
    const { token } = await enableMcp(id);
    const client = await mcpClient(`/mcp/${id}`, token);
    const result = await client.callTool({ name: "ask_flow", arguments: { question: "[echo-auth] please" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/401/);
    expect(textOf(result)).not.toContain("sk-test");
    expect(await messagesOf(id)).toHaveLength(0);
    await client.close();
  });

  it("an agentflow that starts with a form: the tool takes `form` with the Start node's fields", async () => {
    const cred = await openAICredential();
    const formInputTypes = [
      { type: "string", label: "Name", name: "name" },
      { type: "number", label: "Age", name: "age" },
      { type: "boolean", label: "Adult", name: "is_adult" },
      { type: "options", label: "Drink", name: "drink", addOptions: [{ option: "Tea" }, { option: "Coffee" }] },
    ];
    const { id } = await saveAgentflowOf(
      [start({ startInputType: "formInput", formInputTypes }), llm("llmAgentflow_0", cred)],
      [afEdge("startAgentflow_0", "llmAgentflow_0")],
    );
    const { token } = await enableMcp(id);
    const client = await mcpClient(`/mcp/${id}`, token);
    const [tool] = (await client.listTools()).tools;
    expect(tool.inputSchema).toMatchObject({
      type: "object",
      required: ["form"],
      properties: {
        form: {
          type: "object",
          properties: {
            name: { type: "string", description: "Name" },
            age: { type: "number" },
            is_adult: { type: "boolean" },
            drink: { enum: ["Tea", "Coffee"] },
          },
        },
      },
    });
    const m = marker();
    const result = await client.callTool({
      name: "ask_flow",
      arguments: { form: { name: `Ada ${m}`, age: 36, is_adult: true, drink: "Tea" } },
    });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe(`echo: name: Ada ${m}\nage: 36\nis_adult: true\ndrink: Tea`);
    const [question] = await messagesOf(id);
    expect(question).toMatchObject({ role: "userMessage", chatType: "MCP" });
    expect(question.content).toContain(`name: Ada ${m}`);
    await client.close();
  });

  it("a run that pauses for human input answers its question as text", async () => {
    const flow = approvalFlow("Shall I send the invoice?");
    const { id } = await saveAgentflowOf(flow.nodes, flow.edges);
    const { token } = await enableMcp(id);
    const client = await mcpClient(`/mcp/${id}`, token);
    const result = await client.callTool({ name: "ask_flow", arguments: { question: "send it" } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("Shall I send the invoice?");
    await client.close();
  });

  it("the flow's rate limit counts tool calls: over it, the call answers isError with the limit's message", async () => {
    const id = await saveChatflow();
    await json("PUT", `/chatflows/${id}`, {
      body: { apiConfig: JSON.stringify({ rateLimit: { status: true, limitMax: 1, limitDuration: 60, limitMsg: "Slow down, MCP" } }) },
    });
    const { token } = await enableMcp(id);
    const client = await mcpClient(`/mcp/${id}`, token);
    await client.listTools(); // listing is not a run
    expect((await client.callTool({ name: "ask_flow", arguments: { question: "one" } })).isError).toBeFalsy();
    const second = await client.callTool({ name: "ask_flow", arguments: { question: "two" } });
    expect(second.isError).toBe(true);
    expect(textOf(second)).toBe("Slow down, MCP");
    await client.close();
  });

  it("a body over 1 MB: 413", async () => {
    const id = await saveChatflow();
    const { token } = await enableMcp(id);
    const big = {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "ask_flow", arguments: { question: "x".repeat(1024 * 1024) } },
    };
    expect((await rpc(`/mcp/${id}`, big, { authorization: `Bearer ${token}` })).status).toBe(413);
  });
});
