// customMCP through POST /prediction: a chatflow saved with a customMCP tool whose server is at a
// public name; the worker's fetch for that name is routed to the loopback MCP server (or to a port
// that refuses connections), so the outbound policy passes and the real wire protocol is spoken.
import { afterEach, describe, expect, inject, it, vi } from "vitest";
import { callOf, toolAgentFlow } from "../engine/agents-flows";
import { closedUrl } from "../engine/helpers";
import { json } from "../helpers";
import { framesOf } from "../security/helpers";
import { call } from "../helpers";
import { openAICredential } from "../agentflow-api/flows";

const PUBLIC = "https://mcp.tools.example";

afterEach(() => {
  vi.restoreAllMocks();
});

/** The worker's fetch, with requests to PUBLIC sent to `target` instead. */
function route(target: string) {
  const real = globalThis.fetch.bind(globalThis);
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith(PUBLIC)) return real(input as RequestInfo, init);
    return real(target + url.slice(PUBLIC.length), init);
  });
}

async function saveFlow(): Promise<string> {
  const mcp = {
    id: "customMCP_0",
    name: "customMCP",
    label: "Custom MCP",
    inputs: { mcpServerConfig: JSON.stringify({ url: `${PUBLIC}/mcp` }), mcpActions: '["echo"]' },
  };
  const flowData = toolAgentFlow({ credential: await openAICredential(), calculator: false, memory: false, nodes: [mcp] });
  return (await json("POST", "/chatflows", { body: { name: "mcp tools", flowData } })).id;
}

describe("customMCP through POST /prediction", () => {
  it("JSON: the tool is called and its answer is in the prediction and its usedTools", async () => {
    route(inject("mcpUrl"));
    const id = await saveFlow();
    const m = `p${crypto.randomUUID().slice(0, 8)}`;
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `${callOf("echo", { text: m })} ${m}` } });
    expect(answer.text).toBe(`tools said: mcp echo: ${m}`);
    expect(answer.usedTools).toEqual([{ tool: "echo", toolInput: { text: m }, toolOutput: `mcp echo: ${m}` }]);
  });

  it("streaming, the MCP server down: an error frame naming it, then the end; never a hang", async () => {
    route(closedUrl());
    const id = await saveFlow();
    const started = Date.now();
    const res = await call("POST", `/prediction/${id}`, { body: { question: "hi", streaming: true } });
    const frames = await framesOf(res);
    const error = frames.find((f) => f.event === "error");
    expect(error?.data).toMatch(/^Custom MCP \(customMCP_0\): the MCP server at mcp\.tools\.example failed: /);
    expect(frames.at(-1)!.event).toBe("end");
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
