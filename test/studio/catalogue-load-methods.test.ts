// POST /node-load-method/{name}: what the canvas's dropdowns list — model lists, the nodes an
// agentflow node picks from, and the caller's own flows, document stores, tools and state keys.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectError, json, uuid } from "../helpers";

type Option = { label: string; name: string; description?: string; imageSrc?: string };
type Param = { name: string; loadMethod?: string; array?: Param[]; tabs?: Param[] };

const load = (node: string, body: Record<string, unknown>, expected = 200) =>
  json<Option[]>("POST", `/node-load-method/${node}`, { body }, expected);

function methodsOf(params: Param[] | undefined, out = new Set<string>()): Set<string> {
  for (const p of params ?? []) {
    if (p.loadMethod) out.add(p.loadMethod);
    methodsOf(p.array, out);
    methodsOf(p.tabs, out);
  }
  return out;
}

describe("node load methods", () => {
  it("lists our models for a chat model or embeddings node, and the chat model nodes for an agentflow node", async () => {
    const openai = await load("chatOpenAI", { loadMethod: "listModels", inputs: {} });
    expect(openai.map((m) => m.name)).toContain("gpt-4o-mini");
    const workersAi = await load("cloudflareWorkersAIEmbeddings", { loadMethod: "listModels" });
    expect(workersAi.map((m) => m.name)).toContain("@cf/baai/bge-base-en-v1.5");

    const models = await load("llmAgentflow", { loadMethod: "listModels" });
    expect(models.find((m) => m.name === "chatOpenAI")).toMatchObject({ label: "OpenAI", imageSrc: "/api/v1/node-icon/chatOpenAI" });
    expect(models.map((m) => m.name)).not.toContain("chatOpenAI_LlamaIndex");
    expect(models.every((m) => m.name !== "llmChain")).toBe(true);

    const tools = (await load("agentAgentflow", { loadMethod: "listTools" })).map((t) => t.name);
    expect(tools).toContain("calculator");
    expect(tools).not.toContain("chainTool");
    expect(tools).toEqual(expect.arrayContaining(["githubMCP", "slackMCP"]));
    expect(tools).toEqual(expect.arrayContaining(["customMCP", "customMcpServerTool"])); // "Tools (MCP)", as Flowise offers them
    const stores = (await load("agentAgentflow", { loadMethod: "listVectorStores" })).map((t) => t.name);
    expect(stores).toContain("localVectorStore");
    expect((await load("agentAgentflow", { loadMethod: "listEmbeddings" })).map((t) => t.name)).toContain("openAIEmbeddings");
  });

  it("lists the caller's flows, saved tools, assistants and upserted document stores", async () => {
    const flowName = `catalogue-flow-${uuid()}`;
    const flow = await json("POST", "/chatflows", { body: { name: flowName, flowData: '{"nodes":[],"edges":[]}', type: "AGENTFLOW" } });
    expect(await load("executeFlowAgentflow", { loadMethod: "listFlows" })).toContainEqual({
      label: flowName,
      name: flow.id,
      description: "Agentflow V2",
    });

    const schema = JSON.stringify([{ property: "city", type: "string", description: "Which city", required: true }]);
    const tool = await json("POST", "/tools", {
      body: { name: `weather_${uuid().slice(0, 8)}`, description: "Weather", schema, func: "return 1" },
    });
    expect(await load("customTool", { loadMethod: "listTools" })).toContainEqual({
      label: tool.name,
      name: tool.id,
      description: "Weather",
    });
    const args = await load("toolAgentflow", {
      loadMethod: "listToolInputArgs",
      currentNode: { inputs: { toolAgentflowSelectedTool: "customTool", toolAgentflowSelectedToolConfig: { selectedTool: tool.id } } },
    });
    expect(args).toEqual([{ label: "city", name: "city", description: "Which city" }]);

    const assistant = await json("POST", "/assistants", {
      body: { details: { name: "Helper", instructions: "Be brief" }, type: "CUSTOM" },
    });
    expect(await load("openAIAssistant", { loadMethod: "listAssistants" })).toContainEqual({
      label: "Helper",
      name: assistant.id,
      description: "Be brief",
    });

    const storeName = `catalogue-store-${uuid()}`;
    const store = await json("POST", "/document-store/store", { body: { name: storeName, description: "Docs" } });
    expect((await load("retrieverAgentflow", { loadMethod: "listStores" })).map((s) => s.name)).not.toContain(`${store.id}:${storeName}`);
    await env.DB.prepare("UPDATE document_store SET status = 'UPSERTED' WHERE id = ?").bind(store.id).run();
    expect(await load("retrieverAgentflow", { loadMethod: "listStores" })).toContainEqual({
      label: storeName,
      name: `${store.id}:${storeName}`,
      description: "Docs",
    });
    expect((await load("documentStoreVS", { loadMethod: "listStores" })).map((s) => s.name)).toContain(store.id);
  });

  it("lists the Start node's state keys and the nodes before a Loop, from what the canvas sends", async () => {
    const previousNodes = [
      {
        id: "startAgentflow_0",
        name: "startAgentflow",
        label: "Start",
        inputs: {
          startState: [
            { key: "topic", value: "" },
            { key: "n", value: "0" },
          ],
        },
      },
      { id: "llmAgentflow_0", name: "llmAgentflow", label: "Writer", inputs: {} },
    ];
    expect(await load("llmAgentflow", { loadMethod: "listRuntimeStateKeys", previousNodes })).toEqual([
      { label: "topic", name: "topic" },
      { label: "n", name: "n" },
    ]);
    expect(await load("loopAgentflow", { loadMethod: "listPreviousNodes", previousNodes })).toContainEqual({
      label: "Writer",
      name: "llmAgentflow_0-Writer",
      description: "llmAgentflow_0",
    });
    expect(await load("llmAgentflow", { loadMethod: "listRuntimeStateKeys", previousNodes: [] })).toEqual([]);
  });

  it("answers every load method every node declares", async () => {
    const nodes = await json<{ name: string; inputs?: Param[] }[]>("GET", "/nodes");
    let answered = 0;
    for (const node of nodes) {
      for (const method of methodsOf(node.inputs)) {
        const res = await call("POST", `/node-load-method/${node.name}`, { body: { loadMethod: method, inputs: {}, previousNodes: [] } });
        if (method === "listActions" && node.name === "customMCP") {
          await expectError(res, 400); // no server configured yet (test/studio/mcp-actions.test.ts lists a real one's)
          continue;
        }
        expect(res.status, `${node.name} ${method}: ${res.status}`).toBe(200);
        expect(Array.isArray(await res.json())).toBe(true);
        answered++;
      }
    }
    expect(answered).toBeGreaterThan(30);
  });

  it("refuses an unknown node (404), a method the node does not declare or none (400)", async () => {
    await expectError(await call("POST", "/node-load-method/noSuchNode", { body: { loadMethod: "listModels" } }), 404);
    expect(
      (await expectError(await call("POST", "/node-load-method/chatOpenAI", { body: { loadMethod: "listFlows" } }), 400)).message,
    ).toContain("listFlows");
    await expectError(await call("POST", "/node-load-method/chatOpenAI", { body: { inputs: {} } }), 400);
  });
});
