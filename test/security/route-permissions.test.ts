// Every endpoint checks the permission it needs (issue 8, point 4): a key holding no permission is
// refused with a 403 naming it, and a key holding just that permission gets past the check.
import { beforeAll, describe, expect, it } from "vitest";
import { can } from "../../src/auth/guard";
import { call, expectError, json, uuid } from "../helpers";
import { type MadeKey, flowOf, keyWith } from "./keys";

// Destructive rows use ids that name nothing: with the permission they answer 404, not 403.
const none = "0b6f2c1e-3a4d-4e5f-8a9b-0c1d2e3f4a5b";
let flow = ""; // a real CHATFLOW, so record-kind checks see its type
const f = (path: string) => path.replace("{flow}", flow);

const ROUTES: [method: string, path: string, permission: string, body?: unknown][] = [
  ["POST", "/tools", "tools:create", { name: "t" }],
  ["GET", "/tools", "tools:view"],
  ["GET", `/tools/${none}`, "tools:view"],
  ["PUT", `/tools/${none}`, "tools:update", { name: "t" }],
  ["DELETE", `/tools/${none}`, "tools:delete"],
  ["POST", "/assistants", "assistants:create", { details: {} }],
  ["GET", "/assistants", "assistants:view"],
  ["GET", `/assistants/${none}`, "assistants:view"],
  ["PUT", `/assistants/${none}`, "assistants:update", { details: {} }],
  ["DELETE", `/assistants/${none}`, "assistants:delete"],
  ["POST", "/variables", "variables:create", { name: "v_route_perm" }],
  ["GET", "/variables", "variables:view"],
  ["PUT", `/variables/${none}`, "variables:update", { value: "x" }],
  ["DELETE", `/variables/${none}`, "variables:delete"],
  ["POST", "/credentials", "credentials:create", { name: "c", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-x" } }],
  ["GET", "/credentials", "credentials:view"],
  ["GET", `/credentials/${none}`, "credentials:view"],
  ["PUT", `/credentials/${none}`, "credentials:update", { name: "c" }],
  ["DELETE", `/credentials/${none}`, "credentials:delete"],
  ["POST", "/apikey", "apikeys:create", { keyName: "k", permissions: [] }],
  ["GET", "/apikey", "apikeys:view"],
  ["GET", `/apikey/${none}`, "apikeys:view"],
  ["PUT", `/apikey/${none}`, "apikeys:update", { keyName: "k" }],
  ["DELETE", `/apikey/${none}`, "apikeys:delete"],
  ["POST", "/chatflows", "chatflows:create", { name: "f", flowData: "{}" }],
  ["GET", "/chatflows", "chatflows:view"],
  ["GET", "/chatflows/{flow}", "chatflows:view"],
  ["PUT", "/chatflows/{flow}", "chatflows:update", { name: "renamed" }],
  ["DELETE", `/chatflows/${none}`, "chatflows:delete"],
  ["GET", "/chatmessage/{flow}", "chatflows:view"],
  ["DELETE", "/chatmessage/{flow}", "chatflows:update"],
  ["GET", "/feedback/{flow}", "chatflows:view"],
  ["GET", "/leads/{flow}", "chatflows:view"],
  ["GET", "/upsert-history/{flow}", "chatflows:view"],
  ["PATCH", "/upsert-history/{flow}", "chatflows:update", { ids: [none] }],
  ["PATCH", "/upsert-history", "chatflows:update", { ids: [none] }],
  ["POST", "/document-store/store", "documentStores:create", { name: "s" }],
  ["GET", "/document-store/store", "documentStores:view"],
  ["GET", `/document-store/store/${none}`, "documentStores:view"],
  ["PUT", `/document-store/store/${none}`, "documentStores:update", { name: "s" }],
  ["DELETE", `/document-store/store/${none}`, "documentStores:delete"],
  ["GET", `/document-store/chunks/${none}/all/1`, "documentStores:view"],
  ["PUT", `/document-store/chunks/${none}/${none}/${none}`, "documentStores:update", { pageContent: "x" }],
  ["DELETE", `/document-store/chunks/${none}/${none}/${none}`, "documentStores:delete"],
  ["DELETE", `/document-store/loader/${none}/${none}`, "documentStores:delete-loader"],
  ["POST", `/document-store/upsert/${none}`, "documentStores:upsert-config", { loader: { name: "plainText", config: { text: "x" } } }],
  ["POST", `/document-store/refresh/${none}`, "documentStores:upsert-config", {}],
  ["POST", "/document-store/vectorstore/query", "documentStores:view", { storeId: none, query: "q" }],
  ["DELETE", `/document-store/vectorstore/${none}`, "documentStores:upsert-config"],
];

let bare: MadeKey;
beforeAll(async () => {
  flow = await flowOf();
  bare = await keyWith([]);
});

describe("route → permission", () => {
  it.each(ROUTES)("%s %s needs %s", async (method, path, permission, body) => {
    const refused = await expectError(await call(method, f(path), { token: bare.apiKey, body }), 403);
    expect(refused.message).toContain(`"${permission}"`);

    const holder = await keyWith([permission]);
    const res = await call(method, f(path), { token: holder.apiKey, body });
    expect(res.status, await res.clone().text()).not.toBe(403);
    expect(res.status).not.toBe(401);
    expect(res.status).toBeLessThan(500);
  });

  it("GET /chatflows/apikey/{apikey} needs chatflows:view; the permission list needs only a valid bearer", async () => {
    const bound = await keyWith();
    expect((await expectError(await call("GET", `/chatflows/apikey/${bound.apiKey}`, { token: bare.apiKey }), 403)).message).toContain(
      '"chatflows:view"',
    );
    expect((await call("GET", `/chatflows/apikey/${bound.apiKey}`, { token: (await keyWith(["chatflows:view"])).apiKey })).status).toBe(
      200,
    );
    expect((await call("GET", "/auth/permissions/API_KEY", { token: bare.apiKey })).status).toBe(200);
  });

  it("the API reference states the permission of every bearer route, and its 403", async () => {
    const spec = await json("GET", "/openapi.json", { token: null });
    const undocumented: string[] = [];
    for (const [path, ops] of Object.entries<Record<string, any>>(spec.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const bearerOnly = op.security?.length === 1 && op.security[0].bearerAuth;
        if (!bearerOnly || path.startsWith("/vector/upsert")) continue; // vector upsert follows the chatflow's run rule
        if (!/Needs: /.test(op.description ?? "") || !op.responses?.["403"]) undocumented.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(undocumented).toEqual([]);
    expect(spec.paths["/chatflows/{id}"].get.description).toContain("agentflows");
  });

  it("a route cannot declare a permission Flowise does not have (a typo would refuse everyone)", () => {
    expect(() => can("chatflows:veiw")).toThrow(/chatflows:veiw/);
    expect(can("executions:view").needs).toBe("executions:view");
  });

  it("an unknown id is still refused without the permission (no probing around the check)", async () => {
    await expectError(await call("GET", `/chatflows/${uuid()}`, { token: bare.apiKey }), 403);
    await expectError(await call("GET", `/chatflows/${uuid()}`, { token: (await keyWith(["chatflows:view"])).apiKey }), 404);
  });
});
