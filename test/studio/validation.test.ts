// Issue 31 item 4: GET /validation/{id}, the agentflow canvas's Validate button. Each node's
// problems in Flowise's shape ([{id, label, name, issues}], nodes without issues left out): what
// the catalogue's descriptors require (inputs shown by their show/hide rules, connections,
// credentials, array rows, the chosen model's own settings), loose nodes, dangling edges, unknown
// nodes, an impossible schedule, and the engine's own reasons placed on the nodes they name.
import { afterEach, describe, expect, it } from "vitest";
import { afEdge, afNode, openAICredential, saveAgentflowOf, start } from "../agentflow-api/flows";
import { call, expectError, json } from "../helpers";

const made: string[] = [];
afterEach(async () => {
  while (made.length) await call("DELETE", `/chatflows/${made.pop()}`);
});

type Result = { id: string; label: string; name: string; issues: string[] };
const validate = (id: string) => json<Result[]>("GET", `/validation/${id}`);

async function agentflow(nodes: unknown[], edges: unknown[]): Promise<string> {
  const { id } = await saveAgentflowOf(nodes, edges);
  made.push(id);
  return id;
}

async function chatflow(nodes: unknown[], edges: unknown[]): Promise<string> {
  const { id } = await json("POST", "/chatflows", { body: { name: "chatflow", flowData: JSON.stringify({ nodes, edges }) } });
  made.push(id);
  return id;
}

const chatNode = (id: string, inputs: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  id,
  type: "customNode",
  position: { x: 0, y: 0 },
  data: { id, name: id.replace(/_\d+$/, ""), label: id, category: "", inputs, ...extra },
});
const chatEdge = (source: string, target: string, input: string, type: string) => ({
  id: `${source}-${target}`,
  source,
  target,
  sourceHandle: `${source}-output-x`,
  targetHandle: `${target}-input-${input}-${type}`,
});

describe("GET /validation/{id}", () => {
  it("a flow ready to run has no issues", async () => {
    const credential = await openAICredential();
    const llm = afNode("llmAgentflow_0", "Answer", {
      llmModel: "chatOpenAI",
      llmModelConfig: { modelName: "gpt-4o-mini", FLOWISE_CREDENTIAL_ID: credential },
    });
    const id = await agentflow([start(), llm], [afEdge("startAgentflow_0", "llmAgentflow_0")]);
    expect(await validate(id)).toEqual([]);
  });

  it("names each node's missing inputs, model settings, credential, array rows, loose node, unknown node and dangling edges", async () => {
    const nodes = [
      start(),
      afNode("llmAgentflow_0", "No Model", {}),
      afNode("llmAgentflow_1", "No Credential", { llmModel: "chatOpenAI", llmModelConfig: { modelName: "gpt-4o-mini" } }),
      afNode("conditionAgentAgentflow_0", "Router", {
        conditionAgentModel: "chatOllama",
        conditionAgentModelConfig: { modelName: "" },
        conditionAgentInstructions: "Route it",
        conditionAgentScenarios: [{ scenario: "a question" }, { scenario: "" }],
      }),
      afNode("agentAgentflow_0", "Agent", {
        agentModel: "chatCloudflareWorkersAI",
        agentModelConfig: { model: "@cf/meta/llama-3.1-8b-instruct-fast" },
        agentTools: [{ agentSelectedTool: "teleporter" }],
      }),
      afNode("directReplyAgentflow_0", "Loose", { directReplyMessage: "hi" }),
      afNode("fooAgentflow_0", "Mystery", {}),
    ];
    const edges = [
      afEdge("startAgentflow_0", "llmAgentflow_0"),
      afEdge("llmAgentflow_0", "llmAgentflow_1"),
      afEdge("llmAgentflow_1", "conditionAgentAgentflow_0"),
      afEdge("conditionAgentAgentflow_0", "agentAgentflow_0", 0),
      afEdge("agentAgentflow_0", "fooAgentflow_0"),
      afEdge("agentAgentflow_0", "gone_0"),
      { id: "ghost", source: "nowhere_0", target: "nobody_0", sourceHandle: "x", targetHandle: "y" },
    ];
    const id = await agentflow(nodes, edges);
    expect(await validate(id)).toEqual([
      { id: "llmAgentflow_0", label: "No Model", name: "llmAgentflow", issues: ["Model is required"] },
      { id: "llmAgentflow_1", label: "No Credential", name: "llmAgentflow", issues: ["Model requires a credential"] },
      {
        id: "conditionAgentAgentflow_0",
        label: "Router",
        name: "conditionAgentAgentflow",
        issues: ["Model configuration: Model Name is required", "Scenarios item #2: Scenario is required"],
      },
      {
        id: "agentAgentflow_0",
        label: "Agent",
        name: "agentAgentflow",
        issues: ["Tools item #1 (teleporter): edgeflow has no teleporter", "Connected to non-existent target node gone_0"],
      },
      { id: "directReplyAgentflow_0", label: "Loose", name: "directReplyAgentflow", issues: ["This node is not connected to anything"] },
      {
        id: "fooAgentflow_0",
        label: "Mystery",
        name: "fooAgentflow",
        issues: ["edgeflow has no node fooAgentflow: replace it with one from the node list"],
      },
      { id: "ghost", label: "Edge ghost", name: "edge", issues: ["Disconnected edge - both source and target nodes do not exist"] },
    ]);
  });

  it("places the engine's reasons on the nodes they name, and the flow's own on the flow", async () => {
    const llm = afNode("llmAgentflow_0", "Step", { llmModel: "chatCloudflareWorkersAI" });
    const looped = await agentflow(
      [start(), llm, afNode("llmAgentflow_1", "Back", { llmModel: "chatCloudflareWorkersAI" })],
      [
        afEdge("startAgentflow_0", "llmAgentflow_0"),
        afEdge("llmAgentflow_0", "llmAgentflow_1"),
        afEdge("llmAgentflow_1", "llmAgentflow_0"),
      ],
    );
    const cycle = await validate(looped);
    expect(cycle.map((r) => r.id)).toEqual(["llmAgentflow_0"]);
    expect(cycle[0].issues).toEqual([expect.stringMatching(/^The edges make a cycle through Step \(llmAgentflow_0\)/)]);

    const twoStarts = await agentflow(
      [start(), afNode("startAgentflow_1", "Start 2", { startInputType: "chatInput" })],
      [afEdge("startAgentflow_0", "startAgentflow_1")],
    );
    const flow = await json("GET", `/chatflows/${twoStarts}`);
    expect(await validate(twoStarts)).toEqual([
      { id: twoStarts, label: flow.name, name: "flow", issues: ["An agentflow has exactly one Start node; this one has 2"] },
    ]);
  });

  it("an impossible schedule is an issue of its Start node", async () => {
    const scheduled = start({
      startInputType: "scheduleInput",
      scheduleType: "cronExpression",
      scheduleCronExpression: "every day",
      scheduleDefaultInput: "go",
    });
    const id = await agentflow(
      [scheduled, afNode("directReplyAgentflow_0", "Reply", { directReplyMessage: "done" })],
      [afEdge("startAgentflow_0", "directReplyAgentflow_0")],
    );
    const [result] = await validate(id);
    expect(result).toMatchObject({ id: "startAgentflow_0", name: "startAgentflow" });
    expect(result.issues).toEqual([expect.stringMatching(/^Schedule configuration is invalid: /)]);
  });

  it("chatflows: a required connection, a node's credential, and the flow's own reason (no ending node)", async () => {
    const id = await chatflow(
      [chatNode("chatOpenAI_0", { modelName: "gpt-4o-mini" }), chatNode("conversationChain_0", { memory: "" }), chatNode("bufferMemory_0")],
      [chatEdge("bufferMemory_0", "conversationChain_0", "memory", "BaseMemory")],
    );
    expect(await validate(id)).toEqual([
      {
        id: "chatOpenAI_0",
        label: "chatOpenAI_0",
        name: "chatOpenAI",
        issues: ["This node is not connected to anything", "Credential is required"],
      },
      {
        id: "conversationChain_0",
        label: "conversationChain_0",
        name: "conversationChain",
        issues: ["Chat Model is required: connect a node to it"],
      },
    ]);
    const only = await chatflow([chatNode("bufferMemory_0")], []);
    const flow = await json("GET", `/chatflows/${only}`);
    expect(await validate(only)).toEqual([
      { id: only, label: flow.name, name: "flow", issues: ["Ending node must be either a Chain or Agent or Engine"] },
    ]);
  });

  it("a graph that cannot be read is one issue of the flow", async () => {
    const { id } = await json("POST", "/chatflows", { body: { name: "empty", type: "AGENTFLOW", flowData: "{}" } });
    made.push(id);
    expect(await validate(id)).toEqual([{ id, label: "empty", name: "flow", issues: ["flowData has no nodes array"] }]);
  });

  it("404 for no such flow, 400 for an id that is no UUID, 403 for a key that may not see the flow", async () => {
    await expectError(await call("GET", `/validation/${crypto.randomUUID()}`), 404);
    await expectError(await call("GET", "/validation/not-a-uuid"), 400);
    const id = await agentflow([start()], []);
    const key = (await json("POST", "/apikey", { body: { keyName: `chat-only-${crypto.randomUUID()}`, permissions: ["chatflows:view"] } }))
      .apiKey;
    await expectError(await call("GET", `/validation/${id}`, { token: key }), 403);
    await expectError(await call("GET", `/validation/${id}`, { token: null }), 401);
  });
});
