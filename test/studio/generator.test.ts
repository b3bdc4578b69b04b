// Issue 31 item 4: POST /agentflowv2-generator/generate, the agentflow canvas's Generate button.
// The chosen chat model (here the OpenAI-compatible stand-in, which answers a forced function call
// with the arguments given as `[so {json}]`) is asked for a plan; the answer is checked against the
// catalogue and the agentflow rules and comes back as the canvas loads it — then saves and runs.
import { describe, expect, it } from "vitest";
import { openAICredential, standinUrl } from "../agentflow-api/flows";
import { call, expectError, json } from "../helpers";

const marker = () => `m${crypto.randomUUID().slice(0, 8)}`;

async function chatModel() {
  const credential = await openAICredential();
  return { name: "chatOpenAI", credential, inputs: { modelName: "gpt-standin", basepath: `${standinUrl()}/v1`, temperature: 0.2 } };
}

const generate = async (question: string, selectedChatModel?: unknown) =>
  call("POST", "/agentflowv2-generator/generate", { body: { question, selectedChatModel: selectedChatModel ?? (await chatModel()) } });

/** A question the stand-in answers with `plan` as the forced call's arguments. */
const asking = (plan: unknown, m = marker()) => `Draft replies to support emails ${m} [so ${JSON.stringify(plan)}]`;

const REVIEW_PLAN = {
  description: "Drafts a reply and asks a person before sending it",
  nodes: [
    { id: "start", name: "startAgentflow", label: "Start" },
    { id: "draft", name: "llmAgentflow", label: "Draft Reply", instructions: "Write a short reply.\nBe kind." },
    { id: "review", name: "humanInputAgentflow", label: "Review", instructions: "Send this reply?" },
    { id: "send", name: "directReplyAgentflow", label: "Approved", instructions: "{{ llmAgentflow_0 }}" },
    { id: "again", name: "loopAgentflow", label: "Redraft", loopBackTo: "draft" },
  ],
  edges: [
    { source: "start", target: "draft" },
    { source: "draft", target: "review" },
    { source: "review", target: "send", branch: 0 },
    { source: "review", target: "again", branch: 1 },
  ],
};

describe("POST /agentflowv2-generator/generate", () => {
  it("answers the plan as canvas nodes and edges: canonical ids, catalogue node data, the chosen model in every model input", async () => {
    const model = await chatModel();
    const m = marker();
    const res = await generate(asking(REVIEW_PLAN, m), model);
    expect(res.status).toBe(200);
    const flow = (await res.json()) as any;
    expect(flow.description).toBe(REVIEW_PLAN.description);
    expect(flow.nodes.map((n: any) => [n.id, n.type, n.data.name, n.data.label])).toEqual([
      ["startAgentflow_0", "agentFlow", "startAgentflow", "Start"],
      ["llmAgentflow_0", "agentFlow", "llmAgentflow", "Draft Reply"],
      ["humanInputAgentflow_0", "agentFlow", "humanInputAgentflow", "Review"],
      ["directReplyAgentflow_0", "agentFlow", "directReplyAgentflow", "Approved"],
      ["loopAgentflow_0", "agentFlow", "loopAgentflow", "Redraft"],
    ]);
    const [start, draft, review, , loop] = flow.nodes;
    const descriptor = await json("GET", "/nodes/llmAgentflow");
    expect(draft.data.version).toBe(descriptor.version);
    expect(draft.data.inputParams.map((p: any) => p.name)).toEqual(descriptor.inputs.map((p: any) => p.name));
    expect(draft.data.inputParams[0].id).toBe("llmAgentflow_0-input-llmModel-asyncOptions");
    expect(draft.data.inputs).toMatchObject({
      llmModel: "chatOpenAI",
      llmModelConfig: {
        llmModel: "chatOpenAI",
        modelName: "gpt-standin",
        basepath: model.inputs.basepath,
        FLOWISE_CREDENTIAL_ID: model.credential,
      },
      llmMessages: [{ role: "system", content: "<p>Write a short reply.</p><p>Be kind.</p>" }],
    });
    expect(review.data.inputs).toMatchObject({ humanInputDescriptionType: "fixed", humanInputDescription: "<p>Send this reply?</p>" });
    expect(loop.data.inputs.loopBackToNode).toBe("llmAgentflow_0-Draft Reply");
    expect(start.position.x).toBeLessThan(draft.position.x);
    expect(flow.edges.map((e: any) => [e.sourceHandle, e.targetHandle, e.data.edgeLabel ?? null])).toEqual([
      ["startAgentflow_0-output-startAgentflow", "llmAgentflow_0", null],
      ["llmAgentflow_0-output-llmAgentflow", "humanInputAgentflow_0", null],
      ["humanInputAgentflow_0-output-0", "directReplyAgentflow_0", "proceed"],
      ["humanInputAgentflow_0-output-1", "loopAgentflow_0", "reject"],
    ]);

    // What the model was asked: our prompt, listing the catalogue's nodes and tools, and a forced plan call.
    const [{ body }] = (await (await fetch(`${standinUrl()}/requests?contains=${m}`)).json()) as any[];
    expect(body.tool_choice).toMatchObject({ type: "function", function: { name: "agentflow_plan" } });
    expect(body.messages[0].content).toContain("- llmAgentflow (LLM)");
    expect(body.messages[0].content).toContain("- calculator (Calculator)");
    expect(body.messages[0].content).not.toContain("stickyNoteAgentflow");

    // Loaded onto the canvas and saved, it runs: the draft, then the pause for review.
    const saved = await json("POST", "/chatflows", {
      body: { name: "generated", type: "AGENTFLOW", flowData: JSON.stringify({ nodes: flow.nodes, edges: flow.edges }) },
    });
    expect(saved.warning).toBeUndefined();
    expect(await json("GET", `/validation/${saved.id}`)).toEqual([]);
    const run = await json("POST", `/prediction/${saved.id}`, { body: { question: "Where is my parcel?" } });
    expect(run.text).toContain("Send this reply?");
    expect(run.agentFlowExecutedData.map((e: any) => e.nodeId)).toEqual(["startAgentflow_0", "llmAgentflow_0", "humanInputAgentflow_0"]);
    await call("DELETE", `/chatflows/${saved.id}`);
  });

  it("gives an agent the tools the plan names, each with its config", async () => {
    const plan = {
      nodes: [
        { id: "startAgentflow_0", name: "startAgentflow", label: "Start" },
        { id: "agentAgentflow_0", name: "agentAgentflow", label: "Helper", tools: ["calculator", "currentDateTime"] },
      ],
      edges: [{ source: "startAgentflow_0", target: "agentAgentflow_0" }],
    };
    const flow = (await (await generate(asking(plan))).json()) as any;
    expect(flow.nodes[1].data.inputs.agentTools).toEqual([
      expect.objectContaining({ agentSelectedTool: "calculator", agentSelectedToolConfig: { agentSelectedTool: "calculator" } }),
      expect.objectContaining({ agentSelectedTool: "currentDateTime", agentSelectedToolConfig: { agentSelectedTool: "currentDateTime" } }),
    ]);
  });

  it("422 for a plan edgeflow cannot use: an unknown node, an unknown tool, an edge to nothing, a cycle", async () => {
    const start = { id: "startAgentflow_0", name: "startAgentflow", label: "Start" };
    const llm = { id: "llmAgentflow_0", name: "llmAgentflow", label: "Write" };
    const cases: [unknown, string][] = [
      [
        { nodes: [start, { id: "slackAgentflow_0", name: "slackAgentflow", label: "Post" }], edges: [] },
        "edgeflow has no node slackAgentflow (slackAgentflow_0)",
      ],
      [
        { nodes: [start, { id: "agentAgentflow_0", name: "agentAgentflow", label: "A", tools: ["teleporter"] }], edges: [] },
        "edgeflow has no tool teleporter (agentAgentflow_0)",
      ],
      [{ nodes: [start, llm], edges: [{ source: "startAgentflow_0", target: "llmAgentflow_9" }] }, "joins a node that is not in the flow"],
      [
        {
          nodes: [start, llm, { id: "llmAgentflow_1", name: "llmAgentflow", label: "Check" }],
          edges: [
            { source: "startAgentflow_0", target: "llmAgentflow_0" },
            { source: "llmAgentflow_0", target: "llmAgentflow_1" },
            { source: "llmAgentflow_1", target: "llmAgentflow_0" },
          ],
        },
        "The edges make a cycle",
      ],
    ];
    for (const [plan, message] of cases) {
      const err = await expectError(await generate(asking(plan)), 422);
      expect(err.message).toContain("The generated flow cannot be used");
      expect(err.message).toContain(message);
    }
  });

  it("502 when the model's answer is no plan, or the model fails; never a 500", async () => {
    const notJson = await expectError(await generate("make a flow [so {this is not json}]"), 502);
    expect(notJson.message).toContain("Agentflow generator");
    const wrongShape = await expectError(await generate(asking({ nodes: "all of them" })), 502);
    expect(wrongShape.message).toContain("does not fit the schema");
    const failed = await expectError(await generate("make a flow [fail]"), 502);
    expect(failed.message).toMatch(/stand-in|500/);
  });

  it("400 for a missing question or model, or a chat model edgeflow does not have; 403 without agentflows:create or update", async () => {
    await expectError(await call("POST", "/agentflowv2-generator/generate", { body: { selectedChatModel: { name: "chatOpenAI" } } }), 400);
    await expectError(await call("POST", "/agentflowv2-generator/generate", { body: { question: "a flow" } }), 400);
    const unknown = await expectError(await generate("a flow", { name: "chatSkynet", inputs: {} }), 400);
    expect(unknown.message).toContain("chatSkynet is not a chat model edgeflow has");
    const key = (await json("POST", "/apikey", { body: { keyName: `viewer-${marker()}`, permissions: ["agentflows:view"] } })).apiKey;
    const refused = await expectError(
      await call("POST", "/agentflowv2-generator/generate", {
        token: key,
        body: { question: "a flow", selectedChatModel: { name: "chatOpenAI" } },
      }),
      403,
    );
    expect(refused.message).toContain("agentflows:create");
  });
});
