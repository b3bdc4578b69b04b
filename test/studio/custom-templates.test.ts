// Issue 31 item 3: the user's own templates (Flowise's /marketplaces/custom). "Save As Template"
// on a flow keeps its graph without its secrets (password and file inputs, the chosen credential);
// a tool keeps its icon, schema and code; the marketplace's Custom tab lists them in Flowise's
// shape; Delete removes one. Stored in D1 (custom_template).
import { afterEach, describe, expect, it } from "vitest";
import { call, expectError, json } from "../helpers";

const made: string[] = [];
afterEach(async () => {
  while (made.length) await call("DELETE", `/chatflows/${made.pop()}`);
});

const marker = () => `m${crypto.randomUUID().slice(0, 8)}`;

const node = (
  id: string,
  inputs: Record<string, unknown>,
  params: { name: string; type: string }[],
  extra: Record<string, unknown> = {},
) => ({
  id,
  type: "customNode",
  position: { x: 0, y: 0 },
  selected: true,
  data: {
    id,
    name: id.replace(/_\d+$/, ""),
    label: id,
    version: 1,
    category: "Chat Models",
    tags: [],
    baseClasses: ["BaseChatModel"],
    inputParams: params,
    inputAnchors: [],
    outputAnchors: [],
    inputs,
    outputs: {},
    credential: "cred-id-that-stays-home",
    filePath: "/server/path",
    ...extra,
  },
});

describe("/marketplaces/custom", () => {
  it("saves a flow as a template without its secrets, lists it in Flowise's shape, deletes it", async () => {
    const m = marker();
    const flowData = JSON.stringify({
      nodes: [
        node("chatOpenAI_0", { modelName: "gpt-4o-mini", basepath: "https://llm.example/v1", apiKeyOverride: "sk-secret" }, [
          { name: "modelName", type: "asyncOptions" },
          { name: "apiKeyOverride", type: "password" },
        ]),
        node("textFile_0", { txtFile: "data:text/plain;base64,SGk=", metadata: "" }, [{ name: "txtFile", type: "file" }], {
          category: "Document Loaders",
        }),
      ],
      edges: [],
    });
    const flow = await json("POST", "/chatflows", { body: { name: `flow ${m}`, type: "AGENTFLOW", flowData } });
    made.push(flow.id);

    const saved = await json("POST", "/marketplaces/custom", {
      body: { name: `My template ${m}`, description: "Mine", badge: "NEW", usecases: ["Support", "Docs"], chatflowId: flow.id },
    });
    expect(saved).toMatchObject({
      id: expect.any(String),
      name: `My template ${m}`,
      description: "Mine",
      badge: "NEW",
      usecases: ["Support", "Docs"],
      type: "AgentflowV2",
      framework: "Langchain",
      categories: ["Chat Models", "Document Loaders"],
    });
    const graph = JSON.parse(saved.flowData);
    const [model, loader] = graph.nodes;
    expect(model.selected).toBe(false);
    expect(model.data.inputs).toEqual({ modelName: "gpt-4o-mini", basepath: "https://llm.example/v1" });
    expect(loader.data.inputs).toEqual({ metadata: "" });
    expect(model.data.credential).toBeUndefined();
    expect(model.data.filePath).toBeUndefined();
    expect(saved.flowData).not.toContain("sk-secret");
    expect(saved.flowData).not.toContain("cred-id-that-stays-home");

    const list = await json<any[]>("GET", "/marketplaces/custom");
    expect(list.find((t) => t.id === saved.id)).toEqual(saved);

    expect(await json("DELETE", `/marketplaces/custom/${saved.id}`)).toEqual({ deleted: 1 });
    expect((await json<any[]>("GET", "/marketplaces/custom")).some((t) => t.id === saved.id)).toBe(false);
    await expectError(await call("DELETE", `/marketplaces/custom/${saved.id}`), 404);
  });

  it("saves a tool as a template: its icon, schema and code, no flowData", async () => {
    const schema = JSON.stringify([{ property: "city", type: "string", description: "City", required: true }]);
    const saved = await json("POST", "/marketplaces/custom", {
      body: {
        name: `Weather ${marker()}`,
        description: "Weather",
        tool: { iconSrc: "https://icons.example/w.svg", schema, func: "return 'sunny';" },
      },
    });
    expect(saved).toMatchObject({
      type: "Tool",
      iconSrc: "https://icons.example/w.svg",
      schema,
      func: "return 'sunny';",
      categories: [],
      usecases: [],
    });
    expect(saved.flowData).toBeUndefined();
    await json("DELETE", `/marketplaces/custom/${saved.id}`);
  });

  it("refuses a body with neither a flow nor a tool (400), a flow that does not exist (404), and callers without the permissions (403)", async () => {
    expect((await expectError(await call("POST", "/marketplaces/custom", { body: { name: "nothing" } }), 400)).message).toContain(
      "chatflowId",
    );
    await expectError(await call("POST", "/marketplaces/custom", { body: { name: "x", chatflowId: crypto.randomUUID() } }), 404);
    await expectError(await call("POST", "/marketplaces/custom", { body: { chatflowId: crypto.randomUUID() } }), 400);

    const mine = await json("POST", "/chatflows", { body: { name: "mine", flowData: '{"nodes":[],"edges":[]}' } });
    const other = await json("POST", "/chatflows", { body: { name: "other", flowData: '{"nodes":[],"edges":[]}' } });
    made.push(mine.id, other.id);
    const scoped = (
      await json("POST", "/apikey", {
        body: { keyName: `exporter-${marker()}`, permissions: ["templates:flowexport", "chatflows:view"], chatflows: [mine.id] },
      })
    ).apiKey;
    await expectError(await call("POST", "/marketplaces/custom", { token: scoped, body: { name: "theirs", chatflowId: other.id } }), 403);
    const ok = await json("POST", "/marketplaces/custom", { token: scoped, body: { name: "ours", chatflowId: mine.id } });
    expect((await expectError(await call("GET", "/marketplaces/custom", { token: scoped }), 403)).message).toContain("templates:custom");
    await expectError(await call("DELETE", `/marketplaces/custom/${ok.id}`, { token: scoped }), 403);
    await json("DELETE", `/marketplaces/custom/${ok.id}`);
  });
});
