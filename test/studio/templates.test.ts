// Issue 31 item 3: the marketplace serves edgeflow's own templates in Flowise's shape, each made of
// the catalogue's nodes exactly (names, versions, inputs, anchors, handles) so the canvas opens it
// and saves it; saved as the canvas saves it, each is a flow without a warning whose only
// validation issues are what the user must choose (a document store, a credential).
import { describe, expect, it } from "vitest";
import { call, expectError, json } from "../helpers";
import { signedIn, studio } from "./helpers";
import { type Flow, NAMES, type Template, saveTemplate, template, templates } from "./templates";

type Param = { name: string; type: string; id?: string };
type Descriptor = { name: string; version: number; category: string; inputs?: Param[]; credential?: Param; outputs?: { name: string }[] };

const made: string[] = [];

describe("GET /marketplaces/templates", () => {
  it("answers edgeflow's seven templates in Flowise's shape: AgentflowV2 first, then chatflows, each by name", async () => {
    const res = await call("GET", "/marketplaces/templates");
    expect(res.status).toBe(200);
    const list = (await res.json()) as Template[];
    expect(list.map((t) => [t.type, t.templateName])).toEqual([
      ["AgentflowV2", NAMES.agent],
      ["AgentflowV2", NAMES.hitl],
      ["AgentflowV2", NAMES.digest],
      ["AgentflowV2", NAMES.mcp],
      ["AgentflowV2", NAMES.webhook],
      ["Chatflow", NAMES.docStore],
      ["Chatflow", NAMES.voice],
    ]);
    for (const t of list) {
      expect(t).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        description: expect.any(String),
        usecases: expect.any(Array),
      });
      expect(t.usecases.length).toBeGreaterThan(0);
      expect(Array.isArray(t.framework)).toBe(true);
      // The canvas loads a template only when its text has these (views/canvas: templateFlowData).
      expect(t.flowData).toContain('"nodes":[');
      expect(t.flowData).toContain('],"edges":[');
      const flow = JSON.parse(t.flowData) as Flow;
      expect(t.categories.sort()).toEqual([...new Set(flow.nodes.map((n) => n.data.category))].sort());
    }
    const ids = new Set(list.map((t) => t.id));
    expect(ids.size).toBe(7);
    // Ids are stable: the same on the next read.
    expect((await templates()).map((t) => t.id)).toEqual(list.map((t) => t.id));
  });

  it("has an ETag: a repeat read is a 304 with no body", async () => {
    const first = await call("GET", "/marketplaces/templates");
    const etag = first.headers.get("etag");
    expect(etag).toBeTruthy();
    await first.body?.cancel();
    const again = await call("GET", "/marketplaces/templates", { headers: { "if-none-match": etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
  });

  it("needs templates:marketplace", async () => {
    await expectError(await call("GET", "/marketplaces/templates", { token: null }), 401);
    const key = (await json("POST", "/apikey", { body: { keyName: `no-templates-${crypto.randomUUID()}`, permissions: ["tools:view"] } }))
      .apiKey;
    const refused = await expectError(await call("GET", "/marketplaces/templates", { token: key }), 403);
    expect(refused.message).toContain("templates:marketplace");
    const reader = (
      await json("POST", "/apikey", { body: { keyName: `templates-${crypto.randomUUID()}`, permissions: ["templates:marketplace"] } })
    ).apiKey;
    expect((await call("GET", "/marketplaces/templates", { token: reader })).status).toBe(200);
  });
});

describe("every template is made of the catalogue's nodes", () => {
  it("names, versions, input parameters and anchors with the canvas's handle ids; inputs only the node has; edges on real handles", async () => {
    const problems: string[] = [];
    for (const t of await templates()) {
      const flow = JSON.parse(t.flowData) as Flow;
      const at = (id: string) => `${t.templateName}: ${id}`;
      for (const node of flow.nodes) {
        const d = await json<Descriptor>("GET", `/nodes/${node.data.name}`);
        const data = node.data;
        if (data.id !== node.id) problems.push(`${at(node.id)}: data.id ${data.id}`);
        if (data.version !== d.version) problems.push(`${at(node.id)}: version ${data.version}, the catalogue's ${d.version}`);
        const params = [...(d.credential ? [d.credential] : []), ...(d.inputs ?? [])];
        const held = [...data.inputParams, ...data.inputAnchors] as Param[];
        expect(held.map((p) => p.name).sort(), at(node.id)).toEqual(params.map((p) => p.name).sort());
        for (const p of held) if (p.id !== `${node.id}-input-${p.name}-${p.type}`) problems.push(`${at(node.id)}: handle ${p.id}`);
        const names = new Set([...(d.inputs ?? []).map((p) => p.name), ...(d.inputs ?? []).map((p) => `${p.name}Config`)]);
        for (const key of Object.keys(data.inputs)) if (!names.has(key)) problems.push(`${at(node.id)}: input ${key} is not the node's`);
        const expectedType =
          t.type === "Chatflow"
            ? data.name === "stickyNote"
              ? "stickyNote"
              : "customNode"
            : data.name === "stickyNoteAgentflow"
              ? "stickyNote"
              : "agentFlow";
        if (node.type !== expectedType) problems.push(`${at(node.id)}: type ${node.type}`);
      }
      for (const e of flow.edges) {
        const source = flow.nodes.find((n) => n.id === e.source);
        const target = flow.nodes.find((n) => n.id === e.target);
        if (!source || !target) {
          problems.push(`${t.templateName}: edge ${e.id} joins a missing node`);
          continue;
        }
        const outs = (source.data.outputAnchors as any[]).flatMap((a) => (a.options ? a.options.map((o: any) => o.id) : [a.id]));
        if (!outs.includes(e.sourceHandle)) problems.push(`${t.templateName}: edge ${e.id} leaves from ${e.sourceHandle}`);
        if (t.type === "Chatflow") {
          const anchor = (target.data.inputAnchors as Param[]).find((a) => a.id === e.targetHandle);
          if (!anchor) problems.push(`${t.templateName}: edge ${e.id} enters ${e.targetHandle}`);
          else expect(JSON.stringify(target.data.inputs[anchor.name])).toContain(`{{${source.id}.data.instance}}`);
        } else if (e.targetHandle !== target.id) problems.push(`${t.templateName}: edge ${e.id} enters ${e.targetHandle}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("Use template, then Save", () => {
  it("each saves without a warning; validation leaves only what the user chooses", async () => {
    const expected: Record<string, unknown[]> = {
      [NAMES.agent]: [{ id: "agentAgentflow_0", name: "agentAgentflow", issues: ["Model requires a credential"] }],
      [NAMES.docStore]: [{ id: "documentStoreVS_0", name: "documentStoreVS", issues: ["Select Store is required"] }],
      [NAMES.hitl]: [],
      [NAMES.mcp]: [],
      [NAMES.digest]: [],
      [NAMES.voice]: [],
      [NAMES.webhook]: [],
    };
    for (const name of Object.values(NAMES)) {
      const { template: t, flow } = await template(name);
      const saved = await saveTemplate(t, flow);
      made.push(saved.id);
      expect(saved.warning, name).toBeUndefined();
      const stored = await json("GET", `/chatflows/${saved.id}`);
      expect(JSON.parse(stored.flowData), name).toEqual(flow);
      const issues = await json<any[]>("GET", `/validation/${saved.id}`);
      expect(
        issues.map(({ id, name: n, issues: i }) => ({ id, name: n, issues: i })),
        name,
      ).toEqual(expected[name]);
    }
    for (const id of made.splice(0)) await call("DELETE", `/chatflows/${id}`);
  });
});

describe("from the studio (a signed-in session)", () => {
  it("the page reads the templates, saves a flow as a template, lists and deletes it, and validates a flow", async () => {
    const { cookie } = await signedIn();
    const list = await studio("GET", "/marketplaces/templates", { cookie });
    expect(list.status).toBe(200);
    expect(((await list.json()) as Template[]).length).toBe(7);
    const { template: t, flow } = await template(NAMES.hitl);
    const saved = await saveTemplate(t, flow);
    made.push(saved.id);
    expect((await studio("GET", `/validation/${saved.id}`, { cookie })).status).toBe(200);
    const custom = await studio("POST", "/marketplaces/custom", {
      cookie,
      body: { name: "From the studio", chatflowId: saved.id, usecases: [] },
    });
    expect(custom.status).toBe(200);
    const { id } = (await custom.json()) as { id: string };
    expect(((await (await studio("GET", "/marketplaces/custom", { cookie })).json()) as { id: string }[]).some((x) => x.id === id)).toBe(
      true,
    );
    expect((await studio("DELETE", `/marketplaces/custom/${id}`, { cookie })).status).toBe(200);
    for (const flowId of made.splice(0)) await call("DELETE", `/chatflows/${flowId}`);
  });
});
