// The engine chooses the runtime by the flow's `type`: chatflows run, flow types that have no
// runtime yet answer a clear 400 (JSON, also when streaming is asked for) and store nothing.
import { describe, expect, it } from "vitest";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, flowDataOf, pointAtStandin } from "../engine/helpers";
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

  for (const type of ["AGENTFLOW", "MULTIAGENT"]) {
    it(`${type} answers 400 "not supported yet", stores nothing, and does not stream`, async () => {
      const id = await save(type);
      for (const streaming of [false, true]) {
        const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "hi", streaming } }), 400);
        expect(err.message).toMatch(/not supported yet/);
      }
      expect(await json("GET", `/chatmessage/${id}`)).toEqual([]);
      expect(await json("GET", `/chatflows-streaming/${id}`, { token: null })).toEqual({ isStreaming: false });
    });
  }
});

describe("the runnable-flow routes in the OpenAPI document", () => {
  it("documents both bodies (JSON by schema, multipart with files) of prediction and vector upsert", async () => {
    const doc = await json("GET", "/openapi.json", { token: null });
    for (const [path, schema] of [["/prediction/{id}", "PredictionRequest"], ["/vector/upsert/{id}", "VectorUpsertRequest"]]) {
      const op = doc.paths[path].post;
      expect(op.parameters.map((p: any) => p.name)).toContain("id");
      expect(op.requestBody.content["application/json"].schema).toEqual({ $ref: `#/components/schemas/${schema}` });
      expect(op.requestBody.content["multipart/form-data"].schema.properties.files).toEqual({ type: "array", items: { type: "string", format: "binary" } });
      expect(doc.components.schemas[schema].type).toBe("object");
    }
  });
});
