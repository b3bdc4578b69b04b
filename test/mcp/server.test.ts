// POST /mcp/{chatflowId}: a chatflow and an agentflow as MCP servers, through the SDK's own client.
import { describe, expect, it } from "vitest";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, flowDataOf, pointAtStandin } from "../engine/helpers";
import { json } from "../helpers";
import { afEdge, llm, messagesOf, openAICredential, saveAgentflowOf, start } from "../agentflow-api/flows";
import { enableMcp, mcpClient, textOf } from "./helpers";

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
    expect(tools[0]).toMatchObject({ name: "name_company", description: "Names a company", inputSchema: { type: "object", required: ["question"] } });
    const m = marker();
    const result = await client.callTool({ name: "name_company", arguments: { question: `socks ${m}` } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain(`What is a good name for a company that makes socks ${m}?`);
    const stored = await messagesOf(id);
    expect(stored.map((x) => [x.role, x.chatType])).toEqual([["userMessage", "MCP"], ["apiMessage", "MCP"]]);
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
