// The custom assistant page's pickers (GET /assistants/components/*): the catalogue's chat model and
// tool nodes as full descriptors, and the upserted document stores as {label, name: id, description}.
import { describe, expect, it } from "vitest";
import { call, expectError, json, uuid } from "../helpers";
import { rowsOf } from "../seed";

describe("GET /assistants/components/*", () => {
  it("chatmodels: every catalogue node of category Chat Models, with its inputs", async () => {
    const models = await json<any[]>("GET", "/assistants/components/chatmodels");
    expect(models.length).toBeGreaterThan(3);
    expect(models.every((m) => m.category === "Chat Models")).toBe(true);
    const openai = models.find((m) => m.name === "chatOpenAI");
    expect(openai.inputs.map((i: any) => i.name)).toContain("modelName");
    expect(openai.credential.credentialNames).toEqual(["openAIApi"]);
  });

  it("tools: every catalogue node of category Tools", async () => {
    const tools = await json<any[]>("GET", "/assistants/components/tools");
    expect(tools.length).toBeGreaterThan(0);
    expect(tools.every((t) => t.category === "Tools" && typeof t.label === "string")).toBe(true);
  });

  it("docstores: the upserted stores only", async () => {
    const ready = await json("POST", "/document-store/store", { body: { name: `ready-${uuid()}`, description: "Manuals" } });
    const empty = await json("POST", "/document-store/store", { body: { name: `empty-${uuid()}` } });
    await rowsOf("UPDATE document_store SET status = 'UPSERTED' WHERE id = ?", ready.id);
    const stores = await json<any[]>("GET", "/assistants/components/docstores");
    expect(stores.find((s) => s.name === ready.id)).toEqual({ label: ready.name, name: ready.id, description: "Manuals" });
    expect(stores.find((s) => s.name === empty.id)).toBeUndefined();
  });

  it("needs assistants:view", async () => {
    const key = await json("POST", "/apikey", { body: { keyName: `no-assistants-${uuid()}`, permissions: ["chatflows:view"] } });
    for (const kind of ["chatmodels", "tools", "docstores"]) {
      await expectError(await call("GET", `/assistants/components/${kind}`, { token: key.apiKey }), 403);
    }
    await expectError(await call("GET", "/assistants/components/chatmodels", { token: null }), 401);
  });
});
