// Issue 8, point 4: API keys carry Flowise 3's permissions and may be limited to chatflows.
// The attack: the key a web client needs for one key-bound chatflow re-binds other chatflows to
// itself and mints new keys. A scoped key is now refused (403 naming the permission it lacks).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectError, json, uuid } from "../helpers";
import { flowOf, keyWith } from "./keys";

const boundKeyOf = async (flowId: string) =>
  (await env.DB.prepare("SELECT apikeyid FROM chat_flow WHERE id = ?").bind(flowId).first<{ apikeyid: string | null }>())!.apikeyid;
const keyCount = async () => (await env.DB.prepare("SELECT COUNT(*) AS n FROM apikey").first<{ n: number }>())!.n;

describe("the attack: a web client's key manages the deployment", () => {
  it("a key with chatflows:view only cannot re-bind another chatflow to itself nor mint keys", async () => {
    const other = await flowOf();
    const webKey = await keyWith(["chatflows:view"]);

    const rebind = await expectError(
      await call("PUT", `/chatflows/${other}`, { token: webKey.apiKey, body: { apikeyid: webKey.id } }),
      403,
    );
    expect(rebind.message).toContain('"chatflows:update"');
    expect(await boundKeyOf(other)).toBeNull();

    const before = await keyCount();
    const mint = await expectError(await call("POST", "/apikey", { token: webKey.apiKey, body: { keyName: "mine now" } }), 403);
    expect(mint.message).toContain('"apikeys:create"');
    expect(await keyCount()).toBe(before);

    // What it was given still works.
    expect((await call("GET", `/chatflows/${other}`, { token: webKey.apiKey })).status).toBe(200);
  });

  it("a run-only key (permissions: []) limited to one chatflow runs it and touches nothing else", async () => {
    const mine = await flowOf("CHATFLOW");
    const other = await flowOf("CHATFLOW");
    const key = await keyWith([], [mine]);
    await json("PUT", `/chatflows/${mine}`, { body: { apikeyid: key.id } });

    // Running its chatflow passes the access checks (the empty graph then answers 400, not 401/403).
    const run = await expectError(await call("POST", `/prediction/${mine}`, { token: key.apiKey, body: { question: "hi" } }), 400);
    expect(run.message).not.toMatch(/unauthori|forbidden/i);
    // Another private chatflow: out of its reach, to run or to read.
    expect(
      (await expectError(await call("POST", `/prediction/${other}`, { token: key.apiKey, body: { question: "hi" } }), 403)).message,
    ).toContain("limited to other chatflows");
    await expectError(await call("GET", `/chatmessage/${mine}`, { token: key.apiKey }), 403);
    await expectError(await call("GET", "/tools", { token: key.apiKey }), 403);
  });
});

describe("Flowise's permission names", () => {
  it("GET /auth/permissions/API_KEY lists Flowise's API-key permissions by category", async () => {
    const list = await json<Record<string, { key: string; value: string }[]>>("GET", "/auth/permissions/API_KEY");
    expect(Object.keys(list)).toEqual(
      expect.arrayContaining([
        "chatflows",
        "agentflows",
        "tools",
        "assistants",
        "credentials",
        "variables",
        "apikeys",
        "documentStores",
        "executions",
      ]),
    );
    // Of Flowise's role-only workspace category, only the two permissions of /export-import.
    expect(list.workspace.map((p) => p.key)).toEqual(["workspace:export", "workspace:import"]);
    expect(Object.keys(list)).not.toContain("admin");
    expect(list.chatflows.map((p) => p.key)).toEqual([
      "chatflows:view",
      "chatflows:create",
      "chatflows:update",
      "chatflows:duplicate",
      "chatflows:delete",
      "chatflows:export",
      "chatflows:import",
      "chatflows:config",
      "chatflows:domains",
    ]);
    expect(list.executions.map((p) => p.key)).toEqual(["executions:view", "executions:update", "executions:delete"]);
    expect(list.documentStores.find((p) => p.key === "documentStores:upsert-config")).toMatchObject({
      value: "Upsert Config",
      isOpenSource: true,
    });
    await expectError(await call("GET", "/auth/permissions/API_KEY", { token: null }), 401);
    await expectError(await call("GET", "/auth/permissions/ROLE"), 400);
  });

  it("POST /apikey takes permissions and chatflows; GET /apikey shows them; unknown names are a 400 storing nothing", async () => {
    const flow = await flowOf();
    const made = await json("POST", "/apikey", {
      body: { keyName: "scoped", permissions: ["tools:view", "chatflows:view"], chatflows: [flow.toUpperCase()] },
    });
    expect(made).toMatchObject({ permissions: ["tools:view", "chatflows:view"], chatflows: [flow] });
    const listed = (await json<any[]>("GET", "/apikey")).find((k) => k.id === made.id);
    expect(listed).toMatchObject({ permissions: ["tools:view", "chatflows:view"], chatflows: [flow] });
    expect(await json("GET", `/apikey/${made.id}`)).toMatchObject({ permissions: ["tools:view", "chatflows:view"] });

    const before = await keyCount();
    for (const permissions of [["chatflows:fly"], ["workspace:view"], ["roles:manage"], "chatflows:view", [7]]) {
      const err = await expectError(await call("POST", "/apikey", { body: { keyName: "bad", permissions } }), 400);
      expect(err.message).toContain("permissions");
    }
    const unknownFlow = uuid();
    expect(
      (await expectError(await call("POST", "/apikey", { body: { keyName: "bad", chatflows: [unknownFlow] } }), 400)).message,
    ).toContain(unknownFlow);
    expect(await keyCount()).toBe(before);
  });

  it("PUT /apikey/{id} changes a key's permissions at once; null restores full access", async () => {
    const key = await keyWith(["tools:view"]);
    expect((await call("GET", "/tools", { token: key.apiKey })).status).toBe(200);
    expect(await json("PUT", `/apikey/${key.id}`, { body: { permissions: ["variables:view"] } })).toMatchObject({
      permissions: ["variables:view"],
      keyName: expect.any(String),
    });
    expect((await expectError(await call("GET", "/tools", { token: key.apiKey }), 403)).message).toContain('"tools:view"');
    expect((await call("GET", "/variables", { token: key.apiKey })).status).toBe(200);
    await expectError(await call("PUT", `/apikey/${key.id}`, { body: { permissions: ["nope:nope"] } }), 400);
    expect(await json("PUT", `/apikey/${key.id}`, { body: { permissions: null } })).toMatchObject({ permissions: null });
    expect((await call("GET", "/tools", { token: key.apiKey })).status).toBe(200);
  });

  it("a key created without permissions keeps full access, as before", async () => {
    const full = await keyWith();
    expect(full).toMatchObject({ permissions: null, chatflows: null });
    const flow = await flowOf();
    expect((await json("PUT", `/chatflows/${flow}`, { token: full.apiKey, body: { apikeyid: full.id } })).apikeyid).toBe(full.id);
    expect((await json("POST", "/apikey", { token: full.apiKey, body: { keyName: "made by full key" } })).permissions).toBeNull();
    expect((await call("GET", "/credentials", { token: full.apiKey })).status).toBe(200);
  });
});

describe("agentflow records need agentflows:*, not chatflows:*", () => {
  const CHATFLOW_ALL = ["chatflows:view", "chatflows:create", "chatflows:update", "chatflows:delete"];

  it("a key with every chatflows permission cannot see, change, create or delete agentflows", async () => {
    const agentflow = await flowOf("AGENTFLOW");
    const v1 = await flowOf("MULTIAGENT");
    const chatflow = await flowOf("CHATFLOW");
    const key = await keyWith(CHATFLOW_ALL);
    const as = { token: key.apiKey };

    for (const id of [agentflow, v1]) {
      expect((await expectError(await call("GET", `/chatflows/${id}`, as), 403)).message).toContain('"agentflows:view"');
      expect((await expectError(await call("PUT", `/chatflows/${id}`, { ...as, body: { name: "taken" } }), 403)).message).toContain(
        '"agentflows:update"',
      );
      expect((await expectError(await call("DELETE", `/chatflows/${id}`, as), 403)).message).toContain('"agentflows:delete"');
      expect((await expectError(await call("GET", `/chatmessage/${id}`, as), 403)).message).toContain('"agentflows:view"');
    }
    expect((await json("GET", `/chatflows/${agentflow}`)).name).toBe("AGENTFLOW flow");
    expect(
      (await expectError(await call("POST", "/chatflows", { ...as, body: { name: "af", flowData: "{}", type: "AGENTFLOW" } }), 403))
        .message,
    ).toContain('"agentflows:create"');
    expect((await expectError(await call("GET", "/chatflows?type=AGENTFLOW", as), 403)).message).toContain('"agentflows:view"');
    // Turning its own chatflow into an agentflow is creating one.
    expect((await expectError(await call("PUT", `/chatflows/${chatflow}`, { ...as, body: { type: "AGENTFLOW" } }), 403)).message).toContain(
      '"agentflows:update"',
    );

    const listed = (await json<any[]>("GET", "/chatflows", as)).map((f) => f.id);
    expect(listed).toContain(chatflow);
    expect(listed).not.toContain(agentflow);
    expect(listed).not.toContain(v1);
    expect((await json<any[]>("GET", "/chatflows", as)).every((f) => f.type === "CHATFLOW")).toBe(true);
    const paged = await json("GET", "/chatflows?page=1&limit=1000", as);
    expect(paged.total).toBe(paged.data.length);
    expect(paged.data.every((f: any) => f.type === "CHATFLOW")).toBe(true);
  });

  it("agentflows:* opens agentflows and not chatflows", async () => {
    const agentflow = await flowOf("AGENTFLOW");
    const chatflow = await flowOf("CHATFLOW");
    const key = await keyWith(["agentflows:view", "agentflows:update"]);
    expect((await json("GET", `/chatflows/${agentflow}`, { token: key.apiKey })).id).toBe(agentflow);
    expect((await json("PUT", `/chatflows/${agentflow}`, { token: key.apiKey, body: { name: "renamed af" } })).name).toBe("renamed af");
    expect((await expectError(await call("GET", `/chatflows/${chatflow}`, { token: key.apiKey }), 403)).message).toContain(
      '"chatflows:view"',
    );
    const listed = await json<any[]>("GET", "/chatflows", { token: key.apiKey });
    expect(listed.map((f) => f.id)).toContain(agentflow);
    expect(listed.every((f) => f.type === "AGENTFLOW" || f.type === "MULTIAGENT")).toBe(true);
  });
});

describe("a key limited to chatflows sees and touches only those", () => {
  it("lists, reads and changes only its chatflows, and cannot create others", async () => {
    const mine = await flowOf();
    const other = await flowOf();
    const key = await keyWith(["chatflows:view", "chatflows:update", "chatflows:create"], [mine]);
    const as = { token: key.apiKey };
    expect((await json<any[]>("GET", "/chatflows", as)).map((f) => f.id)).toEqual([mine]);
    expect(await json("GET", "/chatflows?page=1&limit=10", as)).toMatchObject({ total: 1, data: [{ id: mine }] });
    expect((await json("GET", `/chatflows/${mine}`, as)).id).toBe(mine);
    expect((await expectError(await call("GET", `/chatflows/${other}`, as), 403)).message).toContain("limited to other chatflows");
    await expectError(await call("PUT", `/chatflows/${other}`, { ...as, body: { apikeyid: key.id } }), 403);
    expect(await boundKeyOf(other)).toBeNull();
    await expectError(await call("GET", `/chatmessage/${other}`, as), 403);
    await expectError(await call("GET", `/leads/${other}`, as), 403);
    await expectError(await call("GET", `/feedback/${other}`, as), 403);
    await expectError(await call("GET", `/upsert-history/${other}`, as), 403);
    expect((await call("GET", `/chatmessage/${mine}`, as)).status).toBe(200);
    expect((await expectError(await call("POST", "/chatflows", { ...as, body: { name: "x", flowData: "{}" } }), 403)).message).toContain(
      "cannot create",
    );

    // GET /chatflows/apikey/{key}: only what it may see, even for a key bound to more.
    const bound = await keyWith();
    await json("PUT", `/chatflows/${mine}`, { body: { apikeyid: bound.id } });
    await json("PUT", `/chatflows/${other}`, { body: { apikeyid: bound.id } });
    expect((await json<any[]>("GET", `/chatflows/apikey/${bound.apiKey}`, as)).map((f) => f.id)).toEqual([mine]);
    expect((await json<any[]>("GET", `/chatflows/apikey/${bound.apiKey}`)).map((f) => f.id).sort()).toEqual([mine, other].sort());
  });
});

describe("a limited key cannot hand out more than it holds", () => {
  it("creates keys only within its permissions and chatflows, and manages only such keys", async () => {
    const flow = await flowOf();
    const manager = await keyWith(["apikeys:create", "apikeys:view", "apikeys:update", "apikeys:delete", "tools:view"]);
    const as = { token: manager.apiKey };
    const before = await keyCount();
    for (const body of [
      { keyName: "full" },
      { keyName: "wider", permissions: ["tools:view", "credentials:view"] },
      { keyName: "null", permissions: null },
    ]) {
      expect((await expectError(await call("POST", "/apikey", { ...as, body }), 403)).message).toContain("within its own");
    }
    expect(await keyCount()).toBe(before);
    const narrow = await json("POST", "/apikey", { ...as, body: { keyName: "narrow", permissions: ["tools:view"] } });
    expect(narrow.permissions).toEqual(["tools:view"]);
    // It cannot widen that key either, nor reach a key beyond its scope.
    await expectError(await call("PUT", `/apikey/${narrow.id}`, { ...as, body: { permissions: null } }), 403);
    const admin = await keyWith();
    await expectError(await call("GET", `/apikey/${admin.id}`, as), 403);
    await expectError(await call("PUT", `/apikey/${admin.id}`, { ...as, body: { permissions: ["tools:view"] } }), 403);
    await expectError(await call("DELETE", `/apikey/${admin.id}`, as), 403);
    expect((await call("GET", "/tools", { token: admin.apiKey })).status).toBe(200);
    const visible = (await json<any[]>("GET", "/apikey", as)).map((k) => k.id);
    expect(visible).toContain(narrow.id);
    expect(visible).not.toContain(admin.id);

    // A key limited to chatflows gives out only keys limited within them.
    const limited = await keyWith(["apikeys:create"], [flow]);
    await expectError(
      await call("POST", "/apikey", { token: limited.apiKey, body: { keyName: "k", permissions: ["apikeys:create"] } }),
      403,
    );
    expect(
      (await json("POST", "/apikey", { token: limited.apiKey, body: { keyName: "k", permissions: [], chatflows: [flow] } })).chatflows,
    ).toEqual([flow]);
  });
});
