import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectError, json, uuid } from "../helpers";
import { createFlow, rowsOf } from "../seed";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const BAD_TOKEN = "not-a-real-key-not-a-real-key";

const storedLeads = (chatflowid: string) => rowsOf("SELECT * FROM lead WHERE chatflowid = ? ORDER BY createdDate, id", chatflowid);

describe("POST /leads", () => {
  it("records a lead, generating a chatId when none is given", async () => {
    const flow = await createFlow();
    const body = await json("POST", "/leads", {
      body: { chatflowid: flow.id, name: "Ann", email: "ann@example.com", phone: "+33 1 23 45 67 89" },
    });
    expect(Object.keys(body).sort()).toEqual(["chatId", "chatflowid", "createdDate", "email", "id", "name", "phone"]);
    expect(body).toEqual({
      id: expect.stringMatching(UUID),
      chatflowid: flow.id,
      chatId: expect.stringMatching(UUID),
      name: "Ann",
      email: "ann@example.com",
      phone: "+33 1 23 45 67 89",
      createdDate: expect.stringMatching(ISO),
    });
    expect(body.chatId).not.toBe(body.id);
    expect(await storedLeads(flow.id)).toEqual([body]);
  });

  it("keeps a given chatId; name, email and phone are optional", async () => {
    const flow = await createFlow();
    const body = await json("POST", "/leads", { body: { chatflowid: flow.id, chatId: "widget-chat-42", email: "bob@example.com" } });
    expect(body).toEqual({
      id: expect.stringMatching(UUID),
      chatflowid: flow.id,
      chatId: "widget-chat-42",
      name: null,
      email: "bob@example.com",
      phone: null,
      createdDate: expect.stringMatching(ISO),
    });
    const bare = await json("POST", "/leads", { body: { chatflowid: flow.id } });
    expect(bare).toMatchObject({ chatflowid: flow.id, name: null, email: null, phone: null });
    expect(bare.chatId).toMatch(UUID);
    expect(await storedLeads(flow.id)).toHaveLength(2);
  });

  it("answers on the widget's trailing-slash path POST /leads/", async () => {
    const flow = await createFlow({ isPublic: true });
    const body = await json("POST", "/leads/", { token: null, body: { chatflowid: flow.id, chatId: "c", name: "Widget" } });
    expect(body).toMatchObject({ chatflowid: flow.id, chatId: "c", name: "Widget" });
    expect(await storedLeads(flow.id)).toEqual([body]);
  });

  it("stores a lead for a chatflow named in upper case under its canonical id", async () => {
    const flow = await createFlow();
    const body = await json("POST", "/leads", { body: { chatflowid: flow.id.toUpperCase(), name: "Up" } });
    expect(body.chatflowid).toBe(flow.id);
    expect(await storedLeads(flow.id)).toEqual([body]);
  });

  it("answers 404 for an unknown chatflow (with or without a token)", async () => {
    const id = uuid();
    expect((await expectError(await call("POST", "/leads", { body: { chatflowid: id, name: "x" } }), 404)).message).toContain(id);
    await expectError(await call("POST", "/leads", { token: null, body: { chatflowid: id } }), 404);
    expect(await storedLeads(id)).toEqual([]);
  });

  it("answers 400 for a missing or malformed chatflowid and other bad bodies", async () => {
    const flow = await createFlow();
    for (const body of [
      {},
      { name: "no flow" },
      { chatflowid: "not-a-uuid" },
      { chatflowid: 42 },
      { chatflowid: flow.id, chatId: "" },
      { chatflowid: flow.id, email: 5 },
      [],
      "lead",
    ]) {
      await expectError(await call("POST", "/leads", { body }), 400);
    }
    await expectError(await call("POST", "/leads", { raw: "{oops", headers: { "content-type": "application/json" } }), 400);
    await expectError(await call("POST", "/leads"), 400);
    expect(await storedLeads(flow.id)).toEqual([]);
  });

  it("a public chatflow takes leads without a token; a private one answers 401 without one", async () => {
    const pub = await createFlow({ isPublic: true });
    const priv = await createFlow({ isPublic: false });
    const lead = await json("POST", "/leads", { token: null, body: { chatflowid: pub.id, email: "anon@example.com" } });
    expect(lead).toMatchObject({ chatflowid: pub.id, email: "anon@example.com" });

    await expectError(await call("POST", "/leads", { token: null, body: { chatflowid: priv.id, email: "anon@example.com" } }), 401);
    await expectError(await call("POST", "/leads/", { token: null, body: { chatflowid: priv.id } }), 401);
    expect(await storedLeads(priv.id)).toEqual([]);
    const withToken = await json("POST", "/leads", { body: { chatflowid: priv.id, email: "known@example.com" } });
    expect(await storedLeads(priv.id)).toEqual([withToken]);
  });

  it("a wrong token is 401 even for a public chatflow", async () => {
    const pub = await createFlow({ isPublic: true });
    await expectError(await call("POST", "/leads", { token: BAD_TOKEN, body: { chatflowid: pub.id } }), 401);
    expect(await storedLeads(pub.id)).toEqual([]);
  });

  it("answers CORS preflight for any origin", async () => {
    const res = await call("OPTIONS", "/leads/", {
      token: null,
      headers: {
        Origin: "https://blog.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
      },
    });
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("https://blog.example");
  });
});

describe("GET /leads/{chatflowid}", () => {
  it("lists the chatflow's leads oldest first, only its own", async () => {
    const flow = await createFlow();
    const other = await createFlow();
    const insert = env.DB.prepare("INSERT INTO lead (id, name, email, phone, chatflowid, chatId, createdDate) VALUES (?,?,?,?,?,?,?)");
    const rows = [
      { id: uuid(), name: "second", email: null, phone: null, chatflowid: flow.id, chatId: "c2", createdDate: "2026-01-02T00:00:00.000Z" },
      {
        id: uuid(),
        name: "first",
        email: "a@example.com",
        phone: "1",
        chatflowid: flow.id,
        chatId: "c1",
        createdDate: "2026-01-01T00:00:00.000Z",
      },
      { id: uuid(), name: "third", email: null, phone: null, chatflowid: flow.id, chatId: "c3", createdDate: "2026-01-03T00:00:00.000Z" },
      {
        id: uuid(),
        name: "elsewhere",
        email: null,
        phone: null,
        chatflowid: other.id,
        chatId: "c1",
        createdDate: "2026-01-01T12:00:00.000Z",
      },
    ];
    await env.DB.batch(rows.map((r) => insert.bind(r.id, r.name, r.email, r.phone, r.chatflowid, r.chatId, r.createdDate)));
    const created = await json("POST", "/leads", { body: { chatflowid: flow.id, name: "newest" } });

    expect(await json("GET", `/leads/${flow.id}`)).toEqual([rows[1], rows[0], rows[2], created]);
    expect(await json("GET", `/leads/${other.id}/`)).toEqual([rows[3]]);
    expect(await json("GET", `/leads/${(await createFlow()).id}`)).toEqual([]);
  });

  it("needs a token, even for a public chatflow", async () => {
    const pub = await createFlow({ isPublic: true });
    await json("POST", "/leads", { token: null, body: { chatflowid: pub.id, email: "anon@example.com" } });
    await expectError(await call("GET", `/leads/${pub.id}`, { token: null }), 401);
    await expectError(await call("GET", `/leads/${pub.id}`, { token: BAD_TOKEN }), 401);
    expect(await json("GET", `/leads/${pub.id}`)).toHaveLength(1);
  });

  it("answers 404 for an unknown chatflow and 400 for a malformed id", async () => {
    await expectError(await call("GET", `/leads/${uuid()}`), 404);
    await expectError(await call("GET", "/leads/not-a-uuid"), 400);
  });
});
