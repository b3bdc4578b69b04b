// customMCP — a remote MCP server as tools — against a loopback MCP server built with the SDK
// (test/standin/mcp.mjs): in a chatflow's Tool Agent, an agentflow's Agent and Tool nodes; the
// model's arguments reach the server, its answer reaches the model; failures are clear, never hangs.
import { describe, expect, inject, it } from "vitest";
import { withMcpSession } from "../../src/engine/tools/mcp/client";
import { callOf, toolAgentFlow } from "../engine/agents-flows";
import { closedUrl, credential, makeCtx, marker, requestsWith, runFlow, runtimeWith } from "../engine/helpers";
import { agent, edge, graph, run, start } from "../agentflow/helpers";
import { node as afNode } from "../agentflow/helpers";

const mcpUrl = () => inject("mcpUrl");
const allowed = () => runtimeWith({ OUTBOUND_ALLOW: "127.0.0.1" });
const openAI = () => credential("openAIApi", { openAIApiKey: "sk-mcp-test" });

const config = (url = `${mcpUrl()}/mcp`, headers?: Record<string, string>) => JSON.stringify({ url, ...(headers ? { headers } : {}) });
const mcpNode = (inputs: Record<string, unknown>) => ({ id: "customMCP_0", name: "customMCP", label: "Custom MCP", inputs });

async function callsWith(
  text: string,
): Promise<Array<{ path: string; tool: string; args: Record<string, unknown>; authorization: string | null }>> {
  return (await fetch(`${mcpUrl()}/calls?contains=${encodeURIComponent(text)}`)).json();
}

const failure = async (p: Promise<unknown>): Promise<{ status?: number; message: string }> => {
  try {
    await p;
  } catch (err) {
    return err as { status?: number; message: string };
  }
  throw new Error("expected a failure");
};

async function agentFlow(inputs: Record<string, unknown>) {
  return toolAgentFlow({ credential: await openAI(), calculator: false, memory: false, nodes: [mcpNode(inputs)] });
}

describe("customMCP in a chatflow's Tool Agent", () => {
  it("offers the chosen tools with the server's schemas; the model's arguments reach the server; its answer reaches the model", async () => {
    const flow = await agentFlow({ mcpServerConfig: config(), mcpActions: '["echo", "add"]' });
    const m = marker();
    const result = await runFlow(
      flow,
      makeCtx(`${callOf("echo", { text: m })} ${callOf("add", { a: 2, b: 40 })} ${m}`, { runtime: allowed() }),
    );
    expect(result.text).toBe(`tools said: mcp echo: ${m} | 42`);
    expect(result.usedTools).toEqual([
      { tool: "echo", toolInput: { text: m }, toolOutput: `mcp echo: ${m}` },
      { tool: "add", toolInput: { a: 2, b: 40 }, toolOutput: "42" },
    ]);
    expect(await callsWith(m)).toEqual([{ path: "/mcp", tool: "echo", args: { text: m }, authorization: null }]);
    const [first] = await requestsWith(m);
    const tools = (
      first.body as unknown as { tools: Array<{ function: { name: string; description: string; parameters: Record<string, unknown> } }> }
    ).tools;
    expect(tools.map((t) => t.function.name)).toEqual(["echo", "add"]); // not `fail` or `big`: not chosen
    expect(tools[0].function).toMatchObject({
      description: "Echoes the text back",
      parameters: { type: "object", properties: { text: { type: "string", description: "what to echo" } }, required: ["text"] },
    });
  });

  it("headers (with {{$vars.x}}) reach the server; a tool's isError result is an error the model reads", async () => {
    const flow = await agentFlow({
      mcpServerConfig: config(`${mcpUrl()}/secure/mcp`, { Authorization: "Bearer {{$vars.mcp_token}}" }),
      mcpActions: ["echo", "fail"],
    });
    const m = marker();
    const result = await runFlow(
      flow,
      makeCtx(`${callOf("echo", { text: m })} ${callOf("fail", {})} ${m}`, { runtime: allowed(), vars: { mcp_token: "mcp-secret" } }),
    );
    expect(result.text).toBe(`tools said: mcp echo: ${m} | Error: the fail tool failed on purpose`);
    expect((await callsWith(m))[0]).toMatchObject({ path: "/secure/mcp", authorization: "Bearer mcp-secret" });
  });

  it("Flowise's looser config text (unquoted keys) and an older HTTP+SSE server (the fallback)", async () => {
    const flow = await agentFlow({ mcpServerConfig: `{ url: '${mcpUrl()}/sse', }`, mcpActions: '["echo"]' });
    const m = marker();
    const result = await runFlow(flow, makeCtx(`${callOf("echo", { text: m })} ${m}`, { runtime: allowed() }));
    expect(result.text).toBe(`tools said: mcp echo: ${m}`);
    expect((await callsWith(m))[0]).toMatchObject({ path: "/sse", tool: "echo" });
  });

  it("a server that is down: a 502 naming it, at once", async () => {
    const flow = await agentFlow({ mcpServerConfig: config(`${closedUrl()}/mcp`), mcpActions: '["echo"]' });
    const started = Date.now();
    const err = await failure(runFlow(flow, makeCtx("hi", { runtime: allowed() })));
    expect(err.status).toBe(502);
    expect(err.message).toMatch(new RegExp(`^Custom MCP \\(customMCP_0\\): the MCP server at ${new URL(closedUrl()).host} failed: `));
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("the outbound policy: a loopback server is refused unless OUTBOUND_ALLOW lists it (400, nothing sent)", async () => {
    const flow = await agentFlow({ mcpServerConfig: config(), mcpActions: '["echo"]' });
    const err = await failure(runFlow(flow, makeCtx("hi")));
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/^Custom MCP \(customMCP_0\): Outbound request refused: 127\.0\.0\.1 is a loopback address/);
  });

  it("a stdio server (command): a 400 saying Workers cannot start processes; slackMCP without a credential: a 400", async () => {
    const stdio = await agentFlow({
      mcpServerConfig: '{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]}',
      mcpActions: "[]",
    });
    const err = await failure(runFlow(stdio, makeCtx("hi", { runtime: allowed() })));
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/Workers cannot start processes.*Give the URL of an MCP server reachable over HTTP instead/);
    const slack = toolAgentFlow({
      credential: await openAI(),
      calculator: false,
      memory: false,
      nodes: [{ id: "slackMCP_0", name: "slackMCP", label: "Slack MCP", inputs: { mcpActions: '["slack_post_message"]' } }],
    });
    const refused = await failure(runFlow(slack, makeCtx("hi")));
    expect(refused.status).toBe(400);
    expect(refused.message).toMatch(/^Slack MCP \(slackMCP_0\): Missing Slack credentials\. Provide either an OAuth2 access token/);
  });
});

describe("customMCP in agentflows", () => {
  const mcpTool = (actions: string[]) => ({
    agentSelectedTool: "customMCP",
    agentSelectedToolConfig: { mcpServerConfig: config(), mcpActions: JSON.stringify(actions) },
  });

  it("Agent node: the tool is offered and called; its answer is the model's", async () => {
    const g = graph(
      [start(), agent("agentAgentflow_0", { agentTools: [mcpTool(["add"])] }, "Agent 0")],
      [edge("startAgentflow_0", "agentAgentflow_0")],
    );
    const m = marker();
    const out = await run(g, { question: `${callOf("add", { a: 1, b: 2 })} ${m}` }, { ctx: { runtime: allowed() } });
    expect(out.state).toBe("FINISHED");
    expect(out.text).toBe("tools said: 3");
    expect(out.usedTools).toEqual([{ tool: "add", toolInput: { a: 1, b: 2 }, toolOutput: "3" }]);
  });

  it("Tool node: calls the chosen tool with its input arguments", async () => {
    const m = marker();
    const tool = afNode("toolAgentflow_0", {
      toolAgentflowSelectedTool: "customMCP",
      toolAgentflowSelectedToolConfig: { mcpServerConfig: config(), mcpActions: '["echo"]' },
      toolInputArgs: [{ inputArgName: "text", inputArgValue: m }],
    });
    const out = await run(
      graph([start(), tool], [edge("startAgentflow_0", "toolAgentflow_0")]),
      { question: "go" },
      { ctx: { runtime: allowed() } },
    );
    expect(out.state).toBe("FINISHED");
    expect(out.text).toBe(`mcp echo: ${m}`);
    expect(await callsWith(m)).toHaveLength(1);
  });

  it("Agent node with slackMCP and no credential: the 400 says which credentials it takes", async () => {
    const g = graph(
      [start(), agent("agentAgentflow_0", { agentTools: [{ agentSelectedTool: "slackMCP", agentSelectedToolConfig: {} }] }, "Agent 0")],
      [edge("startAgentflow_0", "agentAgentflow_0")],
    );
    const out = await run(g, { question: "q" });
    expect(out).toMatchObject({ state: "ERROR", errorStatus: 400 });
    expect(out.error).toMatch(
      /Missing Slack credentials\. Provide either an OAuth2 access token \(slackOAuth2\) or a Bot Token with Team ID/,
    );
  });
});

describe("the MCP client session: bounded", () => {
  const policy = { OUTBOUND_ALLOW: "127.0.0.1" };

  it("a server that accepts and never answers: a 504 after the session's time limit", async () => {
    const started = Date.now();
    const err = await failure(withMcpSession({ url: `${mcpUrl()}/hang`, headers: {} }, { policy, timeoutMs: 500 }, (c) => c.listTools()));
    expect(err).toMatchObject({ status: 504, message: `the MCP server at ${new URL(mcpUrl()).host} did not answer within 1 s` });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("an answer over the size cap is a failure, not a full memory", async () => {
    const err = await failure(
      withMcpSession({ url: `${mcpUrl()}/mcp`, headers: {} }, { policy }, (c) => c.callTool({ name: "big", arguments: {} })),
    );
    expect(err.status).toBe(502);
    expect(err.message).toMatch(/larger than 2 MB/);
  });

  it("the run's abort ends the session at once", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const err = await failure(
      withMcpSession({ url: `${mcpUrl()}/hang`, headers: {} }, { policy, signal: controller.signal }, (c) => c.listTools()),
    );
    expect((err as Error).name).toBe("AbortError");
  });
});
