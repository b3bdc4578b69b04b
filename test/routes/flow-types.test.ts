// The engine chooses the runtime by the flow's `type`: chatflows and agentflows run, a flow type
// that has no runtime yet (or a graph its runtime cannot run) answers a clear 400 (JSON, also when
// streaming is asked for) and stores nothing.
import { describe, expect, it } from "vitest";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, flowDataOf, pointAtStandin, standinUrl } from "../engine/helpers";
import { call, expectError, json } from "../helpers";

async function save(type: string): Promise<string> {
  const flowData = flowDataOf(llmChain as Fixture, (nodes) => {
    for (const node of nodes.values()) if (node.data.category === "Chat Models") pointAtStandin(node);
  });
  return (await json("POST", "/chatflows", { body: { name: `a ${type}`, type, flowData } })).id;
}

describe("prediction by flow type", () => {
  it("CHATFLOW runs", async () => {
    const id = await save("CHATFLOW");
    expect((await json("POST", `/prediction/${id}`, { body: { question: "socks" } })).text).toContain("socks");
  });

  const refused: Array<[string, RegExp]> = [
    ["AGENTFLOW", /^This agentflow cannot run: Unknown agentflow nodes: .*llmChain \(llmChain_0\)/],
    ["MULTIAGENT", /^This multi-agent flow cannot run: A multi-agent flow needs a Start node \(seqStart\) or a Supervisor/],
  ];
  for (const [type, message] of refused) {
    it(`${type} with a chatflow's graph answers 400 (${message}), stores nothing, and does not stream`, async () => {
      const id = await save(type);
      for (const streaming of [false, true]) {
        const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "hi", streaming } }), 400);
        expect(err.message).toMatch(message);
      }
      expect(await json("GET", `/chatmessage/${id}`)).toEqual([]);
      expect(await json("GET", `/chatflows-streaming/${id}`, { token: null })).toEqual({ isStreaming: false });
    });
  }

  it("AGENTFLOW runs on the agentflow runtime", async () => {
    const start = {
      id: "startAgentflow_0",
      data: { id: "startAgentflow_0", name: "startAgentflow", label: "Start", inputs: { startInputType: "chatInput" } },
    };
    const llm = {
      id: "llmAgentflow_0",
      data: {
        id: "llmAgentflow_0",
        name: "llmAgentflow",
        label: "LLM 0",
        inputs: { llmModel: "chatOpenAI", llmModelConfig: { modelName: "m", basepath: `${standinUrl()}/v1` } },
      },
    };
    const edge = { source: "startAgentflow_0", sourceHandle: "startAgentflow_0-output-startAgentflow", target: "llmAgentflow_0" };
    const saved = await json("POST", "/chatflows", {
      body: { name: "af", type: "AGENTFLOW", flowData: JSON.stringify({ nodes: [start, llm], edges: [edge] }) },
    });
    expect((await json("POST", `/prediction/${saved.id}`, { body: { question: "agent hi" } })).text).toBe("echo: agent hi");
    expect(await json("GET", `/chatflows-streaming/${saved.id}`, { token: null })).toEqual({ isStreaming: true });
    const loose = await json("POST", "/chatflows", {
      body: { name: "af2", type: "AGENTFLOW", flowData: JSON.stringify({ nodes: [start, llm], edges: [] }) },
    });
    const err = await expectError(await call("POST", `/prediction/${loose.id}`, { body: { question: "hi" } }), 400);
    expect(err.message).toBe("This agentflow cannot run: Only the Start node may have no incoming edge: LLM 0 (llmAgentflow_0) has none");
  });
});

describe("the runnable-flow routes in the OpenAPI document", () => {
  it("documents both bodies (JSON by schema, multipart with files) of prediction and vector upsert", async () => {
    const doc = await json("GET", "/openapi.json", { token: null });
    for (const [path, schema] of [
      ["/prediction/{id}", "PredictionRequest"],
      ["/vector/upsert/{id}", "VectorUpsertRequest"],
    ]) {
      const op = doc.paths[path].post;
      expect(op.parameters.map((p: any) => p.name)).toContain("id");
      expect(op.requestBody.content["application/json"].schema).toEqual({ $ref: `#/components/schemas/${schema}` });
      expect(op.requestBody.content["multipart/form-data"].schema.properties.files).toEqual({
        type: "array",
        items: { type: "string", format: "binary" },
      });
      expect(doc.components.schemas[schema].type).toBe("object");
    }
  });
});
