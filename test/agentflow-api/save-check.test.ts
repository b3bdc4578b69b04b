// Saving an agentflow checks its graph and answers the chatflow `warning` (the record is saved as
// sent); running a graph with such a fault is a 400 with the same text.
import { describe, expect, it } from "vitest";
import { call, expectError, json } from "../helpers";
import { afEdge, afNode, approvalFlow, directReply, flowData, saveAgentflowOf, start } from "./flows";

async function expectWarned(nodes: unknown[], edges: unknown[], ...mentions: string[]): Promise<string> {
  const saved = await saveAgentflowOf(nodes, edges);
  expect(saved.warning, JSON.stringify(nodes).slice(0, 200)).toBeTypeOf("string");
  for (const m of mentions) expect(saved.warning).toContain(m);
  const stored = await json("GET", `/chatflows/${saved.id}`);
  expect(stored).not.toHaveProperty("warning");
  expect(stored.flowData).toBe(flowData(nodes, edges));
  const err = await expectError(await call("POST", `/prediction/${saved.id}`, { body: { question: "hi" } }), 400);
  expect(err.message).toBe(saved.warning);
  return saved.warning!;
}

describe("agentflow save-time check", () => {
  it("a runnable graph saves without a warning (POST and PUT)", async () => {
    const flow = approvalFlow();
    const saved = await saveAgentflowOf(flow.nodes, flow.edges);
    expect(saved).not.toHaveProperty("warning");
    const updated = await json("PUT", `/chatflows/${saved.id}`, { body: { flowData: flowData(flow.nodes, flow.edges) } });
    expect(updated).not.toHaveProperty("warning");
  });

  it("no Start, two Starts", async () => {
    await expectWarned([directReply("directReplyAgentflow_0", "hi")], [], "Start");
    const second = afNode("startAgentflow_1", "Start 1", { startInputType: "chatInput" });
    await expectWarned(
      [start(), second, directReply("directReplyAgentflow_0", "hi")],
      [afEdge("startAgentflow_0", "directReplyAgentflow_0"), afEdge("startAgentflow_1", "directReplyAgentflow_0")],
      "Start",
    );
  });

  it("unknown node names are listed", async () => {
    const odd = afNode("zzMysteryAgentflow_0", "Mystery");
    await expectWarned([start(), odd], [afEdge("startAgentflow_0", "zzMysteryAgentflow_0")], "zzMysteryAgentflow");
  });

  it("a branch handle that points nowhere", async () => {
    const flow = approvalFlow();
    const edges = [...flow.edges.slice(0, 2), { ...flow.edges[2], sourceHandle: "humanInputAgentflow_0-output-7" }];
    await expectWarned(flow.nodes, edges, "humanInputAgentflow_0-output-7");
  });

  it("a Loop whose target does not exist", async () => {
    const loop = afNode("loopAgentflow_0", "Loop 0", { loopBackToNode: "llmAgentflow_9-LLM 9", maxLoopCount: 3 });
    await expectWarned([start(), loop], [afEdge("startAgentflow_0", "loopAgentflow_0")], "llmAgentflow_9");
  });

  it("a graph that cannot be read keeps the chatflow wording; changing a flow's type to AGENTFLOW checks it as one", async () => {
    const saved = await json("POST", "/chatflows", {
      body: {
        name: "x",
        type: "AGENTFLOW",
        flowData: JSON.stringify({ nodes: [start()], edges: [{ source: "startAgentflow_0", target: "gone_0" }] }),
      },
    });
    expect(saved.warning).toMatch(/^flowData cannot be run: .*gone_0/);

    const chat = await json("POST", "/chatflows", { body: { name: "y", flowData: flowData([start()], []) } });
    expect(chat.warning).toMatch(/startAgentflow/); // as a chatflow, the Start node is unknown
    const moved = await json("PUT", `/chatflows/${chat.id}`, { body: { type: "AGENTFLOW" } });
    expect(moved.warning).toBeUndefined();
  });
});
