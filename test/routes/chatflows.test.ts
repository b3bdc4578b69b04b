import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectError, json, sleep, uuid } from "../helpers";

const FLOW = '{"nodes":[],"edges":[]}';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const create = (body: Record<string, unknown>) => json("POST", "/chatflows", { body: { name: "flow", flowData: FLOW, ...body } });

describe("chatflows: create and read", () => {
  it("creates with only name + flowData and fills the defaults", async () => {
    const created = await json("POST", "/chatflows", { body: { name: "Support bot", flowData: FLOW } });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      name: "Support bot",
      flowData: FLOW,
      deployed: false,
      isPublic: false,
      apikeyid: null,
      chatbotConfig: null,
      apiConfig: null,
      analytic: null,
      speechToText: null,
      textToSpeech: null,
      followUpPrompts: null,
      category: null,
      type: "CHATFLOW",
      createdDate: expect.stringMatching(ISO),
      updatedDate: expect.stringMatching(ISO),
    });
    expect(created.updatedDate).toBe(created.createdDate);
    expect(await json("GET", `/chatflows/${created.id}`)).toEqual(created);
  });

  it("round-trips every field, JSON-in-string fields as the identical strings", async () => {
    const key = await json("POST", "/apikey", { body: { keyName: "rt" } });
    const id = uuid();
    // Odd spacing and key order: the server must keep the string as sent, not re-serialize it.
    const body = {
      id,
      name: "Everything",
      flowData: '{ "nodes" : [ {"id":"a","data":{"x":1}} ],\n "edges":[] }',
      deployed: true,
      isPublic: true,
      apikeyid: key.id,
      chatbotConfig: '{"allowedOrigins":["https://a.example"],  "b":1}',
      apiConfig: '{"rateLimit":{"status":true,"limitMax":"5"}}',
      analytic: '{"langFuse":{}}',
      speechToText: '{"openAIWhisper":{"status":false}}',
      textToSpeech: '{"none":{}}',
      followUpPrompts: '{"status":false}',
      category: "support;sales",
      type: "AGENTFLOW",
    };
    const created = await json("POST", "/chatflows", { body });
    const { id: _id, ...rest } = body;
    // The answer adds a warning (this graph cannot run); the stored record is the rest of it.
    const { warning, ...record } = created;
    expect(warning).toBe("flowData cannot be run: flowData node a has no data.name");
    expect(record).toEqual({ id, ...rest, createdDate: expect.stringMatching(ISO), updatedDate: expect.stringMatching(ISO) });
    expect(await json("GET", `/chatflows/${id}`)).toEqual(record);
  });

  it("accepts each chatflow type and refuses others with 422", async () => {
    for (const type of ["CHATFLOW", "AGENTFLOW", "MULTIAGENT", "ASSISTANT"]) {
      expect((await create({ type })).type).toBe(type);
    }
    await expectError(await call("POST", "/chatflows", { body: { name: "x", flowData: FLOW, type: "WORKFLOW" } }), 422);
    await expectError(await call("POST", "/chatflows", { body: { name: "x", flowData: FLOW, type: "chatflow" } }), 422);
  });

  it("normalises a client id to lower case and refuses a reused id with 409", async () => {
    const id = uuid();
    const created = await create({ id: id.toUpperCase() });
    expect(created.id).toBe(id);
    const err = await expectError(await call("POST", "/chatflows", { body: { id, name: "again", flowData: FLOW } }), 409);
    expect(err.message).toContain(id);
    expect((await json("GET", `/chatflows/${id}`)).name).toBe("flow");
  });

  it("validates the body: 422 on POST, 400 when not a JSON object", async () => {
    const X = `bad-${crypto.randomUUID()}`; // unique: other test files share the storage
    const post = (raw: string) => call("POST", "/chatflows", { raw, headers: { "content-type": "application/json" } });
    await expectError(await call("POST", "/chatflows", { body: { flowData: FLOW } }), 422); // name missing
    await expectError(await call("POST", "/chatflows", { body: { name: "   ", flowData: FLOW } }), 422);
    await expectError(await call("POST", "/chatflows", { body: { name: X } }), 422); // flowData missing
    await expectError(await call("POST", "/chatflows", { body: { name: X, flowData: "{nodes" } }), 422);
    await expectError(await call("POST", "/chatflows", { body: { name: X, flowData: "[1,2]" } }), 422);
    await expectError(await call("POST", "/chatflows", { body: { name: X, flowData: '"str"' } }), 422);
    await expectError(await call("POST", "/chatflows", { body: { name: X, flowData: { nodes: [] } } }), 422);
    await expectError(await call("POST", "/chatflows", { body: { name: X, flowData: FLOW, chatbotConfig: "{oops" } }), 422);
    await expectError(await call("POST", "/chatflows", { body: { name: X, flowData: FLOW, deployed: "yes" } }), 422);
    await expectError(await call("POST", "/chatflows", { body: { name: X, flowData: FLOW, apikeyid: "not-a-uuid" } }), 422);
    await expectError(await call("POST", "/chatflows", { body: [{ name: X, flowData: FLOW }] }), 400);
    await expectError(await post("{name"), 400);
    await expectError(await post("null"), 400);
    await expectError(await post('"a string"'), 400);
    await expectError(await call("POST", "/chatflows"), 400);
    // Nothing was stored by any of these.
    const all = await json("GET", "/chatflows");
    expect(all.filter((f: any) => f.name === X)).toEqual([]);
  });

  it("refuses an apikeyid that names no API key (422 on POST, 400 on PUT)", async () => {
    const ghost = uuid();
    const err = await expectError(await call("POST", "/chatflows", { body: { name: "bound", flowData: FLOW, apikeyid: ghost } }), 422);
    expect(err.message).toContain(ghost);
    const flow = await create({});
    await expectError(await call("PUT", `/chatflows/${flow.id}`, { body: { apikeyid: ghost } }), 400);
    expect((await json("GET", `/chatflows/${flow.id}`)).apikeyid).toBeNull();
  });
});

describe("chatflows: update", () => {
  it("changes only the given fields and bumps updatedDate", async () => {
    const flow = await create({ name: "before", chatbotConfig: '{"a":1}', category: "c" });
    await sleep();
    const updated = await json("PUT", `/chatflows/${flow.id}`, { body: { name: "after", deployed: true } });
    expect(updated).toEqual({ ...flow, name: "after", deployed: true, updatedDate: expect.stringMatching(ISO) });
    expect(updated.updatedDate > flow.updatedDate).toBe(true);
    expect(updated.createdDate).toBe(flow.createdDate);
    expect(await json("GET", `/chatflows/${flow.id}`)).toEqual(updated);

    await sleep();
    const second = await json("PUT", `/chatflows/${flow.id}`, {
      body: { flowData: '{"nodes":[{"id":"n"}], "edges":[]}', type: "MULTIAGENT", isPublic: true },
    });
    expect(second).toEqual({
      ...updated,
      flowData: '{"nodes":[{"id":"n"}], "edges":[]}',
      type: "MULTIAGENT",
      isPublic: true,
      updatedDate: expect.stringMatching(ISO),
      warning: "flowData cannot be run: flowData node n has no data.name",
    });
    expect(second.updatedDate > updated.updatedDate).toBe(true);
  });

  it("clears nullable fields given as null and binds / unbinds an API key", async () => {
    const key = await json("POST", "/apikey", { body: { keyName: "bind" } });
    const flow = await create({ chatbotConfig: '{"a":1}', category: "c" });
    const bound = await json("PUT", `/chatflows/${flow.id}`, { body: { apikeyid: key.id, chatbotConfig: null, category: null } });
    expect(bound).toMatchObject({ apikeyid: key.id, chatbotConfig: null, category: null, name: "flow", flowData: FLOW });
    const unbound = await json("PUT", `/chatflows/${flow.id}`, { body: { apikeyid: null } });
    expect(unbound.apikeyid).toBeNull();
  });

  it("an empty PUT changes nothing but updatedDate", async () => {
    const flow = await create({ name: "same" });
    await sleep();
    const updated = await json("PUT", `/chatflows/${flow.id}`, { body: {} });
    expect(updated).toEqual({ ...flow, updatedDate: expect.stringMatching(ISO) });
  });

  it("refuses bad PUT bodies with 400 and leaves the record alone", async () => {
    const flow = await create({ name: "guarded" });
    const put = (body: unknown) => call("PUT", `/chatflows/${flow.id}`, { body });
    await expectError(await put({ flowData: "not json" }), 400);
    await expectError(await put({ flowData: "[]" }), 400);
    await expectError(await put({ flowData: "42" }), 400);
    await expectError(await put({ name: "" }), 400);
    await expectError(await put({ name: 5 }), 400);
    await expectError(await put({ type: "NOPE" }), 400);
    await expectError(await put({ isPublic: "true" }), 400);
    await expectError(await put({ apiConfig: "{bad" }), 400);
    await expectError(await put([{ name: "arr" }]), 400);
    await expectError(await call("PUT", `/chatflows/${flow.id}`, { raw: "{", headers: { "content-type": "application/json" } }), 400);
    expect(await json("GET", `/chatflows/${flow.id}`)).toEqual(flow);
  });
});

describe("chatflows: list", () => {
  it("lists newest first, filters by type and pages as {data, total}", async () => {
    const a = await create({ name: "list-a", type: "MULTIAGENT" });
    await sleep();
    const b = await create({ name: "list-b", type: "CHATFLOW" });
    await sleep();
    const c = await create({ name: "list-c", type: "MULTIAGENT" });

    const all = await json("GET", "/chatflows");
    expect(Array.isArray(all)).toBe(true);
    const ids = all.map((f: any) => f.id);
    expect(ids.indexOf(c.id)).toBeLessThan(ids.indexOf(b.id));
    expect(ids.indexOf(b.id)).toBeLessThan(ids.indexOf(a.id));
    expect(ids.indexOf(a.id)).toBeGreaterThanOrEqual(0);
    for (let i = 1; i < all.length; i++) expect(all[i - 1].createdDate >= all[i].createdDate).toBe(true);
    expect(all.find((f: any) => f.id === b.id)).toEqual(b);

    const multi = await json("GET", "/chatflows?type=MULTIAGENT");
    expect(multi.every((f: any) => f.type === "MULTIAGENT")).toBe(true);
    expect(multi.map((f: any) => f.id)).toEqual(all.filter((f: any) => f.type === "MULTIAGENT").map((f: any) => f.id));
    expect(multi.map((f: any) => f.id)).toEqual(expect.arrayContaining([a.id, c.id]));
    expect(multi.map((f: any) => f.id)).not.toContain(b.id);
    await expectError(await call("GET", "/chatflows?type=multi"), 400);

    const page1 = await json("GET", "/chatflows?page=1&limit=2");
    expect(page1).toEqual({ data: all.slice(0, 2), total: all.length });
    const page2 = await json("GET", "/chatflows?page=2&limit=2");
    expect(page2).toEqual({ data: all.slice(2, 4), total: all.length });
    const far = await json("GET", "/chatflows?page=1000&limit=2");
    expect(far).toEqual({ data: [], total: all.length });
    const onlyLimit = await json("GET", "/chatflows?limit=1");
    expect(onlyLimit).toEqual({ data: all.slice(0, 1), total: all.length });
    const onlyPage = await json("GET", "/chatflows?page=1");
    expect(onlyPage).toEqual({ data: all.slice(0, 50), total: all.length });
    const typedPage = await json("GET", "/chatflows?type=MULTIAGENT&page=1&limit=1");
    expect(typedPage).toEqual({ data: multi.slice(0, 1), total: multi.length });

    for (const q of ["page=0", "limit=0", "limit=abc", "page=-1", "page=1.5", "limit=100000"]) {
      await expectError(await call("GET", `/chatflows?${q}`), 400);
    }
  });
});

describe("chatflows: unknown and malformed ids", () => {
  it("answers 404 for an unknown id and 400 for a non-UUID one", async () => {
    const ghost = uuid();
    for (const [method, body] of [
      ["GET", undefined],
      ["PUT", { name: "x" }],
      ["DELETE", undefined],
    ] as const) {
      const err = await expectError(await call(method, `/chatflows/${ghost}`, { body }), 404);
      expect(err.message).toContain(ghost);
      await expectError(await call(method, "/chatflows/not-a-uuid", { body }), 400);
      await expectError(await call(method, "/chatflows/12345", { body }), 400);
    }
  });

  it("finds a chatflow however the client spells its id's case", async () => {
    const flow = await create({ name: "case" });
    expect(await json("GET", `/chatflows/${flow.id.toUpperCase()}`)).toEqual(flow);
    expect((await json("PUT", `/chatflows/${flow.id.toUpperCase()}`, { body: { name: "CASE" } })).id).toBe(flow.id);
    expect(await json("DELETE", `/chatflows/${flow.id.toUpperCase()}`)).toEqual({ deleted: 1 });
  });

  it("deletes a chatflow once: 200 {deleted: 1}, then 404", async () => {
    const flow = await create({});
    expect(await json("DELETE", `/chatflows/${flow.id}`)).toEqual({ deleted: 1 });
    await expectError(await call("GET", `/chatflows/${flow.id}`), 404);
    await expectError(await call("DELETE", `/chatflows/${flow.id}`), 404);
    expect((await json("GET", "/chatflows")).map((f: any) => f.id)).not.toContain(flow.id);
  });
});

describe("chatflows bound to an API key", () => {
  it("GET /chatflows/apikey/{key} answers every chatflow bound to that key", async () => {
    const key = await json("POST", "/apikey", { body: { keyName: "widget" } });
    const other = await json("POST", "/apikey", { body: { keyName: "other" } });
    const one = await create({ name: "bound-1", apikeyid: key.id });
    await sleep();
    const two = await create({ name: "bound-2", apikeyid: key.id });
    await create({ name: "bound-other", apikeyid: other.id });
    await create({ name: "unbound" });

    const bound = await json("GET", `/chatflows/apikey/${key.apiKey}`);
    expect(Array.isArray(bound)).toBe(true);
    expect(bound.map((f: any) => f.id).sort()).toEqual([one.id, two.id].sort());
    expect(bound.find((f: any) => f.id === one.id)).toEqual(one);

    // A key with nothing bound answers an empty array; an unknown key is 401.
    const lonely = await json("POST", "/apikey", { body: { keyName: "lonely" } });
    expect(await json("GET", `/chatflows/apikey/${lonely.apiKey}`)).toEqual([]);
    await expectError(await call("GET", `/chatflows/apikey/${"x".repeat(43)}`), 401);
    await expectError(await call("GET", "/chatflows/apikey/short"), 401);
    // The masked form of a key is not the key.
    await expectError(await call("GET", `/chatflows/apikey/${encodeURIComponent((await json("GET", `/apikey/${key.id}`)).apiKey)}`), 401);

    // Revoking the key makes it unknown here too.
    await json("DELETE", `/apikey/${key.id}`);
    await expectError(await call("GET", `/chatflows/apikey/${key.apiKey}`), 401);
  });

  it("needs a bearer token", async () => {
    const key = await json("POST", "/apikey", { body: { keyName: "anon" } });
    await expectError(await call("GET", `/chatflows/apikey/${key.apiKey}`, { token: null }), 401);
  });
});

describe("chatflows: delete cascades", () => {
  it("removes the chatflow's messages, feedback, leads and upsert history, and nothing of other chatflows", async () => {
    const flow = await create({ name: "doomed" });
    const keep = await create({ name: "kept" });
    const ins = env.DB.prepare(
      "INSERT INTO chat_message (id, role, chatflowid, content, chatType, chatId, sessionId, createdDate) VALUES (?,?,?,?,?,?,?,?)",
    );
    const u = uuid(),
      a = uuid(),
      k = uuid();
    await env.DB.batch([
      ins.bind(u, "userMessage", flow.id, "hi", "EXTERNAL", "c1", "c1", "2026-01-01T00:00:00.000Z"),
      ins.bind(a, "apiMessage", flow.id, "hello", "EXTERNAL", "c1", "c1", "2026-01-01T00:00:01.000Z"),
      ins.bind(k, "apiMessage", keep.id, "kept", "EXTERNAL", "c2", "c2", "2026-01-01T00:00:01.000Z"),
      env.DB.prepare("INSERT INTO upsert_history (id, chatflowid, result, flowData, date) VALUES (?,?,?,?,?)").bind(
        uuid(),
        flow.id,
        "{}",
        FLOW,
        "2026-01-01T00:00:00.000Z",
      ),
    ]);
    await json("POST", "/feedback", { body: { messageId: a, rating: "THUMBS_UP" } });
    await json("POST", "/feedback", { body: { messageId: k, rating: "THUMBS_DOWN" } });
    await json("POST", "/leads", { body: { chatflowid: flow.id, name: "Ann", email: "ann@example.com" } });
    await json("POST", "/leads", { body: { chatflowid: keep.id, name: "Bob" } });
    expect(await json("GET", `/chatmessage/${flow.id}`)).toHaveLength(2);

    expect(await json("DELETE", `/chatflows/${flow.id}`)).toEqual({ deleted: 1 });

    await expectError(await call("GET", `/chatmessage/${flow.id}`), 404);
    await expectError(await call("GET", `/feedback/${flow.id}`), 404);
    await expectError(await call("GET", `/leads/${flow.id}`), 404);
    const count = async (table: string, id: string) =>
      (await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE chatflowid = ?`).bind(id).first<{ n: number }>())!.n;
    for (const table of ["chat_message", "chat_message_feedback", "lead", "upsert_history"]) {
      expect(await count(table, flow.id), table).toBe(0);
    }
    // The other chatflow keeps its records.
    expect(await json("GET", `/chatmessage/${keep.id}`)).toHaveLength(1);
    expect(await json("GET", `/feedback/${keep.id}`)).toHaveLength(1);
    expect(await json("GET", `/leads/${keep.id}`)).toHaveLength(1);
  });

  it("a new chatflow with the deleted one's id starts empty", async () => {
    const flow = await create({ name: "reborn" });
    await env.DB.prepare("INSERT INTO chat_message (id, role, chatflowid, content, chatType, chatId, createdDate) VALUES (?,?,?,?,?,?,?)")
      .bind(uuid(), "userMessage", flow.id, "old", "EXTERNAL", "c", "2026-01-01T00:00:00.000Z")
      .run();
    await json("DELETE", `/chatflows/${flow.id}`);
    const again = await create({ id: flow.id, name: "reborn" });
    expect(again.id).toBe(flow.id);
    expect(await json("GET", `/chatmessage/${flow.id}`)).toEqual([]);
  });
});
