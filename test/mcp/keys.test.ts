// POST /mcp: one MCP server per API key, a tool for every flow whose MCP server is enabled and that
// the key may run. (Storage is shared between test files: tools are picked out by this file's names.)
import { describe, expect, it } from "vitest";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, flowDataOf, pointAtStandin } from "../engine/helpers";
import { json, uuid } from "../helpers";
import { messagesOf, openAICredential } from "../agentflow-api/flows";
import { INITIALIZE, enableMcp, mcpClient, rpc, textOf } from "./helpers";

const marker = () => `k${crypto.randomUUID().slice(0, 8)}`;

async function saveChatflow(extra: Record<string, unknown> = {}): Promise<string> {
  const cred = await openAICredential();
  const flowData = flowDataOf(llmChain as unknown as Fixture, (nodes) => {
    for (const node of nodes.values()) if (node.data.category === "Chat Models") pointAtStandin(node, cred);
  });
  return (await json("POST", "/chatflows", { body: { name: "key flow", flowData, ...extra } })).id;
}

const newKey = async (chatflows: string[] | null = null, permissions: string[] | null = []) => {
  const key = await json("POST", "/apikey", { body: { keyName: `mcp ${uuid()}`, permissions, chatflows } });
  return { id: key.id as string, token: key.apiKey as string };
};

async function toolNames(token: string, prefix: string): Promise<string[]> {
  const client = await mcpClient("/mcp", token);
  const { tools } = await client.listTools();
  await client.close();
  return tools
    .map((t) => t.name)
    .filter((n) => n.startsWith(prefix))
    .sort();
}

describe("POST /mcp with an API key", () => {
  it("offers every enabled flow the key may run: its chatflow limit, flows bound to other keys, disabled ones", async () => {
    const m = marker();
    const [a, b, bound, disabled] = [await saveChatflow(), await saveChatflow(), await saveChatflow(), await saveChatflow()];
    const owner = await newKey();
    await json("PUT", `/chatflows/${bound}`, { body: { apikeyid: owner.id } });
    await enableMcp(a, { toolName: `${m}_a`, description: "A" });
    await enableMcp(b, { toolName: `${m}_b`, description: "B" });
    await enableMcp(bound, { toolName: `${m}_bound`, description: "bound to a key" });
    await enableMcp(disabled, { toolName: `${m}_off`, description: "off" });
    await json("DELETE", `/mcp-server/${disabled}`);

    expect(await toolNames("test-admin-key", m)).toEqual([`${m}_a`, `${m}_b`, `${m}_bound`]);
    expect(await toolNames((await newKey()).token, m)).toEqual([`${m}_a`, `${m}_b`]);
    expect(await toolNames(owner.token, m)).toEqual([`${m}_a`, `${m}_b`, `${m}_bound`]);
    expect(await toolNames((await newKey([a, bound])).token, m)).toEqual([`${m}_a`]);
  });

  it("tools/call runs the flow it names (a new chat, chatType MCP); names are unique (a suffix on collision)", async () => {
    const m = marker();
    const first = await saveChatflow();
    const second = await saveChatflow();
    await enableMcp(first, { toolName: `${m}_same`, description: "first" });
    await enableMcp(second, { toolName: `${m}_same`, description: "second" });
    const key = await newKey([first, second]);
    const client = await mcpClient("/mcp", key.token);
    const { tools } = await client.listTools();
    expect(tools.map((t) => [t.name, t.description])).toEqual([
      [`${m}_same`, "first"],
      [`${m}_same_2`, "second"],
    ]);
    const result = await client.callTool({ name: `${m}_same_2`, arguments: { question: `boots ${m}` } });
    expect(textOf(result)).toContain(`makes boots ${m}?`);
    expect(await messagesOf(first)).toHaveLength(0);
    expect((await messagesOf(second)).map((x) => [x.role, x.chatType])).toEqual([
      ["userMessage", "MCP"],
      ["apiMessage", "MCP"],
    ]);
    await client.close();
  });

  it("no key, a key that does not exist, or a flow's MCP token: 401 with the JSON-RPC body", async () => {
    const id = await saveChatflow();
    const { token } = await enableMcp(id);
    for (const headers of [
      {} as Record<string, string>,
      { authorization: "Bearer not-a-real-key-0123456789" },
      { authorization: `Bearer ${token}` },
    ]) {
      const res = await rpc("/mcp", INITIALIZE, headers);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ jsonrpc: "2.0", error: { code: -32001, message: "Unauthorized" }, id: null });
    }
  });

  it("a browser Origin MCP_CORS_ORIGINS does not list: 403", async () => {
    const res = await rpc("/mcp", INITIALIZE, { authorization: "Bearer test-admin-key", origin: "http://localhost:3000" });
    expect(res.status).toBe(403);
  });
});
