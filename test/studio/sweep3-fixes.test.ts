// What a third sweep of Flowise's UI against edgeflow found broken (the marketplace, the rest of the
// document store pages, the account, API key, variable, tool and flow list pages), call by call as
// the pages make them: the tool dialog's "Save As Template", and the Tools and Document Stores pages'
// search over records made through the API without a description, and the marketplace's My Templates search.
import { beforeAll, describe, expect, it } from "vitest";
import { call, json } from "../helpers";
import { signedIn, studio } from "./helpers";

let cookie = "";
beforeAll(async () => {
  cookie = (await signedIn()).cookie;
});

describe("a custom tool saved as a template from its dialog (POST /marketplaces/custom)", () => {
  // The tool dialog's grid rows, sent as they are: an array, not JSON text.
  const rows = [{ id: 0, property: "text", type: "string", description: "the text", required: true }];

  it("takes the schema as the dialog's rows and lists the template with them as JSON text", async () => {
    const res = await studio("POST", "/marketplaces/custom", {
      cookie,
      body: {
        name: "sweep3 tool template",
        description: "from the tool dialog",
        usecases: [],
        type: "Tool",
        tool: { iconSrc: null, schema: rows, func: "return 'tool says ' + $text;" },
      },
    });
    expect(res.status).toBe(200);
    const saved = (await res.json()) as { id: string; type: string; schema: string };
    expect(saved.type).toBe("Tool");
    expect(JSON.parse(saved.schema)).toEqual(rows);
    // The marketplace's My Templates tab: "Use Template" fills the tool dialog from these fields.
    const listed = ((await json("GET", "/marketplaces/custom")) as { id: string; schema: string; func: string }[]).find(
      (t) => t.id === saved.id,
    );
    expect(listed && JSON.parse(listed.schema)).toEqual(rows);
    expect(listed?.func).toBe("return 'tool says ' + $text;");
    expect((await call("DELETE", `/marketplaces/custom/${saved.id}`)).status).toBe(200);
  });

  it("still takes JSON text, and refuses a schema that is neither rows nor JSON text", async () => {
    const text = await studio("POST", "/marketplaces/custom", {
      cookie,
      body: { name: "sweep3 text schema", tool: { schema: JSON.stringify(rows), func: "return 1;" } },
    });
    expect(text.status).toBe(200);
    const made = (await text.json()) as { id: string; schema: string };
    expect(JSON.parse(made.schema)).toEqual(rows);
    await call("DELETE", `/marketplaces/custom/${made.id}`);
    for (const schema of ["not json", 42, [1, 2]]) {
      const bad = await studio("POST", "/marketplaces/custom", { cookie, body: { name: "sweep3 bad", tool: { schema, func: "" } } });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { message: string }).message).toMatch(/tool\.schema/);
    }
  });
});

describe("the Tools and Document Stores pages' search over records made without a description", () => {
  // The pages' filter reads `description.toLowerCase()` of every item whose name does not match: one
  // null description and the page goes white.
  it("answers the studio a missing description as an empty text; bearer callers keep null", async () => {
    const tool = await json("POST", "/tools", { body: { name: "sweep3_no_description", schema: "[]", func: "return 1;" } });
    const store = await json("POST", "/document-store/store", { body: { name: "sweep3 no description" } });
    expect([tool.description, store.description]).toEqual([null, null]);
    for (const [path, id] of [
      ["/tools", tool.id],
      ["/tools?page=1&limit=12", tool.id],
      ["/document-store/store", store.id],
      ["/document-store/store?page=1&limit=12", store.id],
    ]) {
      const res = await studio("GET", path, { cookie });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { id: string; description: unknown }[] | { data: { id: string; description: unknown }[] };
      const found = (Array.isArray(body) ? body : body.data).find((r) => r.id === id);
      expect(found?.description, path).toBe("");
    }
    const one = (await (await studio("GET", `/document-store/store/${store.id}`, { cookie })).json()) as { description: unknown };
    expect(one.description).toBe("");
    const bearer = (await json("GET", "/tools")) as { id: string; description: unknown }[];
    expect(bearer.find((t) => t.id === tool.id)?.description).toBeNull();
    // A description given is answered as it is.
    const described = await json("POST", "/tools", { body: { name: "sweep3_described", description: "Says hi", schema: "[]", func: "" } });
    const listed = (await (await studio("GET", "/tools", { cookie })).json()) as { id: string; description: unknown }[];
    expect(listed.find((t) => t.id === described.id)?.description).toBe("Says hi");
    await call("DELETE", `/tools/${tool.id}`);
    await call("DELETE", `/tools/${described.id}`);
    await call("DELETE", `/document-store/store/${store.id}`);
  });
});

describe("the marketplace's search on My Templates (GET /marketplaces/custom)", () => {
  // The page runs one search filter over both tabs, reading `templateName.toLowerCase()`: a custom
  // template without it whose categories do not match the search turned the page white.
  it("answers the studio each custom template's name as templateName too", async () => {
    const made = await json("POST", "/marketplaces/custom", {
      body: { name: "sweep3 searchable tool", tool: { schema: "[]", func: "return 1;" } },
    });
    const listed = (await (await studio("GET", "/marketplaces/custom", { cookie })).json()) as Record<string, unknown>[];
    const found = listed.find((t) => t.id === made.id);
    expect(found).toMatchObject({ name: "sweep3 searchable tool", templateName: "sweep3 searchable tool", categories: [] });
    // Bearer callers keep the contract's record.
    const bearer = (await json("GET", "/marketplaces/custom")) as Record<string, unknown>[];
    expect(bearer.find((t) => t.id === made.id)).not.toHaveProperty("templateName");
    await call("DELETE", `/marketplaces/custom/${made.id}`);
  });
});
