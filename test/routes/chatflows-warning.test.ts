// POST/PUT /chatflows answer a `warning` when the flowData just saved cannot run as it is:
// nodes the engine does not build, or a graph it cannot read. The record is saved unchanged.
import { describe, expect, it } from "vitest";
import { supportedNodeNames } from "../../src/engine/chatflow/registry";
import conversationalRetrieval from "../engine/fixtures/conversational-retrieval-qa-chain.json";
import llmChain from "../engine/fixtures/llm-chain.json";
import toolAgent from "../engine/fixtures/tool-agent.json";
import { type Fixture, flowDataOf } from "../engine/helpers";
import { call, expectError, json } from "../helpers";

/** A node the way Flowise exports one (only what the engine reads). */
const node = (id: string, name: string, category = "Tools") => ({
  id,
  type: "customNode",
  data: { id, name, label: name, category, inputs: {} },
});
const graph = (...nodes: unknown[]) => JSON.stringify({ nodes, edges: [] });

/** What the warning must name for a fixture: its node names the registry lacks (sticky notes aside), sorted. */
function expectedUnsupported(fixture: Fixture): string[] {
  const supported = new Set(supportedNodeNames());
  return [...new Set(fixture.nodes.map((n) => n.data.name).filter((n) => n !== "stickyNote" && !supported.has(n)))].sort();
}

const save = (flowData: string) => json("POST", "/chatflows", { body: { name: "warned", flowData } });

describe("chatflow save warning", () => {
  it("no warning field for a flow the engine can run; the answer is the stored record", async () => {
    const flowData = flowDataOf(llmChain as unknown as Fixture);
    const created = await save(flowData);
    expect(created).not.toHaveProperty("warning");
    expect(await json("GET", `/chatflows/${created.id}`)).toEqual(created);
    const updated = await json("PUT", `/chatflows/${created.id}`, { body: { flowData, name: "renamed" } });
    expect(updated).not.toHaveProperty("warning");
  });

  it("names each unsupported node once, sorted; sticky notes are not nodes", async () => {
    const flowData = graph(
      node("b_0", "zzEdgeflowUnknownB"),
      node("a_0", "zzEdgeflowUnknownA"),
      node("a_1", "zzEdgeflowUnknownA"),
      { id: "note_0", type: "stickyNote", data: { id: "note_0", name: "stickyNote", label: "Note", category: "Utilities", inputs: {} } },
      node("chain_0", "llmChain", "Chains"),
    );
    const created = await save(flowData);
    expect(created.warning).toBe("Unsupported nodes: zzEdgeflowUnknownA, zzEdgeflowUnknownB");
  });

  it("a marketplace template with unsupported nodes saves exactly as sent, with the warning alongside", async () => {
    for (const fixture of [toolAgent, conversationalRetrieval] as unknown as Fixture[]) {
      const names = expectedUnsupported(fixture);
      const flowData = flowDataOf(fixture);
      const res = await call("POST", "/chatflows", { body: { name: "template", flowData } });
      expect(res.status).toBe(200);
      const { warning, ...record } = await res.json<any>();
      if (names.length) expect(warning).toBe(`Unsupported nodes: ${names.join(", ")}`);
      else expect(warning).toBeUndefined();
      // The stored record is the answer without the warning; the warning itself is never stored.
      const stored = await json("GET", `/chatflows/${record.id}`);
      expect(stored).toEqual(record);
      expect(stored.flowData).toBe(flowData);
      expect(stored).not.toHaveProperty("warning");
      const listed = (await json<any[]>("GET", "/chatflows")).find((f) => f.id === record.id);
      expect(listed).not.toHaveProperty("warning");
    }
  });

  it("the warning says what prediction will refuse", async () => {
    const created = await save(graph(node("x_0", "zzEdgeflowUnknownX"), node("chain_0", "llmChain", "Chains")));
    const err = await expectError(await call("POST", `/prediction/${created.id}`, { body: { question: "q" } }), 400);
    expect(err.message).toContain("zzEdgeflowUnknownX");
    expect(created.warning).toBe("Unsupported nodes: zzEdgeflowUnknownX");
  });

  it("PUT warns about the flowData it saves, and only when it saves flowData", async () => {
    const created = await save(flowDataOf(llmChain as unknown as Fixture));
    const bad = graph(node("x_0", "zzEdgeflowUnknownX"));
    const put = await json("PUT", `/chatflows/${created.id}`, { body: { flowData: bad } });
    expect(put.warning).toBe("Unsupported nodes: zzEdgeflowUnknownX");
    expect(put.flowData).toBe(bad);
    // A PUT that leaves flowData alone says nothing about it.
    const renamed = await json("PUT", `/chatflows/${created.id}`, { body: { name: "renamed" } });
    expect(renamed).not.toHaveProperty("warning");
    expect(renamed.flowData).toBe(bad);
    // Fixing the graph clears the warning.
    const fixed = await json("PUT", `/chatflows/${created.id}`, { body: { flowData: flowDataOf(llmChain as unknown as Fixture) } });
    expect(fixed).not.toHaveProperty("warning");
  });

  it("a JSON object that is not a readable graph still saves, with a warning saying why", async () => {
    const cases: Record<string, string> = {
      "{}": "flowData cannot be run: flowData has no nodes array",
      '{"nodes":"nope"}': "flowData cannot be run: flowData has no nodes array",
      '{"nodes":[],"edges":{}}': "flowData cannot be run: flowData edges must be an array",
      '{"nodes":[{"id":"a","data":{"x":1}}],"edges":[]}': "flowData cannot be run: flowData node a has no data.name",
      '{"nodes":[42]}': "flowData cannot be run: flowData node #1 is not an object",
      [graph(node("a", "llmChain", "Chains")).replace('"edges":[]', '"edges":[{"source":"a","target":"ghost"}]')]:
        "flowData cannot be run: flowData edge #1 refers to a node that does not exist: ghost",
    };
    for (const [flowData, warning] of Object.entries(cases)) {
      const created = await save(flowData);
      expect(created.warning, flowData).toBe(warning);
      expect(created.flowData).toBe(flowData);
      const stored = await json("GET", `/chatflows/${created.id}`);
      expect(stored.flowData).toBe(flowData);
      expect(stored).not.toHaveProperty("warning");
    }
  });

  it("an empty graph (a draft) and wiring problems left for prediction are not warned about", async () => {
    expect(await save('{"nodes":[],"edges":[]}')).not.toHaveProperty("warning");
    // No ending node: prediction answers 400, but the nodes are all supported and the graph reads.
    expect(await save(graph(node("p_0", "promptTemplate", "Prompts")))).not.toHaveProperty("warning");
  });

  it("flowData that is not a JSON object is still refused (422), not warned about", async () => {
    await expectError(await call("POST", "/chatflows", { body: { name: "x", flowData: "[1,2]" } }), 422);
    await expectError(await call("POST", "/chatflows", { body: { name: "x", flowData: "{nope" } }), 422);
  });

  it("the OpenAPI document describes the warning on POST and PUT", async () => {
    const doc = await json("GET", "/openapi.json", { token: null });
    // ChatflowSaved = Chatflow plus an optional `warning` string.
    const saved = doc.components.schemas.ChatflowSaved;
    expect(saved.allOf[0]).toEqual({ $ref: "#/components/schemas/Chatflow" });
    expect(saved.allOf[1].properties.warning).toMatchObject({ type: "string", description: expect.stringContaining("Unsupported nodes") });
    expect(saved.allOf[1].required ?? []).not.toContain("warning");
    const ref = "#/components/schemas/ChatflowSaved";
    expect(doc.paths["/chatflows"].post.responses["200"].content["application/json"].schema.$ref).toBe(ref);
    expect(doc.paths["/chatflows/{id}"].put.responses["200"].content["application/json"].schema.$ref).toBe(ref);
  });
});
