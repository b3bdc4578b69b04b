import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN_KEY, call, expectError, json, uuid } from "../helpers";
import { at, countOf, createFlow, fileExists, keysUnder, presented, putFile, rowsOf, seedFeedback, seedMessages } from "../seed";

// Each test makes its own chatflow: storage is shared by the tests of a file.

const SOURCES = [{ pageContent: "Paris is the capital of France.", metadata: { source: "facts.txt" } }];
const TOOLS = [{ tool: "calculator", toolInput: { input: "2+2" }, toolOutput: "4" }];

/**
 * Three chats over four days:
 *   c1 (session s1, EXTERNAL, Buffer Memory): q1 a1 (Jan 10), q2 a2 (Jan 11)
 *   c2 (session s2, INTERNAL, no memory):    q3 (Jan 12 00:00:00.000) a3 (Jan 12 23:59:59.999)
 *   c3 (session s1, EXTERNAL, Window Memory): q4 a4 sharing one millisecond (Jan 13)
 * a1 is rated THUMBS_UP, a3 THUMBS_DOWN. A second chatflow holds a message of chat c1 too.
 */
async function conversation() {
  const flow = await createFlow();
  const other = await createFlow({ name: "other" });
  const [q1, a1, q2, a2, q3, a3, q4, a4] = await seedMessages(flow.id, [
    {
      role: "userMessage",
      content: "q1",
      chatId: "c1",
      sessionId: "s1",
      memoryType: "Buffer Memory",
      createdDate: "2026-01-10T09:00:00.000Z",
      fileUploads: [{ type: "url", name: "pic.png", mime: "image/png", data: "https://example.com/pic.png" }],
    },
    {
      role: "apiMessage",
      content: "a1",
      chatId: "c1",
      sessionId: "s1",
      memoryType: "Buffer Memory",
      createdDate: "2026-01-10T09:00:01.000Z",
      sourceDocuments: SOURCES,
      usedTools: TOOLS,
      followUpPrompts: ["more?"],
      action: { id: "x", elements: [] },
    },
    {
      role: "userMessage",
      content: "q2",
      chatId: "c1",
      sessionId: "s1",
      memoryType: "Buffer Memory",
      createdDate: "2026-01-11T12:00:00.000Z",
      leadEmail: "ann@example.com",
    },
    {
      role: "apiMessage",
      content: "a2",
      chatId: "c1",
      sessionId: "s1",
      memoryType: "Buffer Memory",
      createdDate: "2026-01-11T12:00:01.000Z",
      agentReasoning: [{ agentName: "agent", messages: ["hi"] }],
      artifacts: [{ type: "png", data: "x" }],
      fileAnnotations: [{ filePath: "p", fileName: "f.txt" }],
    },
    { role: "userMessage", content: "q3", chatType: "INTERNAL", chatId: "c2", sessionId: "s2", createdDate: "2026-01-12T00:00:00.000Z" },
    { role: "apiMessage", content: "a3", chatType: "INTERNAL", chatId: "c2", sessionId: "s2", createdDate: "2026-01-12T23:59:59.999Z" },
    {
      role: "userMessage",
      content: "q4",
      chatId: "c3",
      sessionId: "s1",
      memoryType: "Window Memory",
      createdDate: "2026-01-13T08:00:00.000Z",
    },
    {
      role: "apiMessage",
      content: "a4",
      chatId: "c3",
      sessionId: "s1",
      memoryType: "Window Memory",
      createdDate: "2026-01-13T08:00:00.000Z",
    },
  ]);
  const [stranger] = await seedMessages(other.id, [
    { role: "apiMessage", content: "elsewhere", chatId: "c1", sessionId: "s1", createdDate: "2026-01-11T00:00:00.000Z" },
  ]);
  const [up, down] = await seedFeedback([
    { message: a1, rating: "THUMBS_UP", content: "good", createdDate: "2026-01-10T10:00:00.000Z" },
    { message: a3, rating: "THUMBS_DOWN", createdDate: "2026-01-13T00:00:00.000Z" },
  ]);
  const [strangerFeedback] = await seedFeedback([{ message: stranger, rating: "THUMBS_DOWN" }]);
  return { flow, other, q1, a1, q2, a2, q3, a3, q4, a4, stranger, up, down, strangerFeedback, all: [q1, a1, q2, a2, q3, a3, q4, a4] };
}

const contents = (messages: { content: string }[]) => messages.map((m) => m.content);
const list = (flowId: string, query = "") => json<any[]>("GET", `/chatmessage/${flowId}${query}`);
const remove = (flowId: string, query = "") => json<{ deleted: number }>("DELETE", `/chatmessage/${flowId}${query}`);

describe("GET /chatmessage/{chatflowid}", () => {
  it("lists every message of the chatflow oldest first, JSON fields parsed, no feedback attached", async () => {
    const s = await conversation();
    const body = await list(s.flow.id);
    expect(body).toEqual(s.all.map((m) => presented(m)));
    // Spot-check the parsed JSON fields and nulls on the wire.
    expect(body[1].sourceDocuments).toEqual(SOURCES);
    expect(body[1].usedTools).toEqual(TOOLS);
    expect(body[1].followUpPrompts).toEqual(["more?"]);
    expect(body[1].action).toEqual({ id: "x", elements: [] });
    expect(body[0].fileUploads).toEqual([{ type: "url", name: "pic.png", mime: "image/png", data: "https://example.com/pic.png" }]);
    expect(body[3].agentReasoning).toEqual([{ agentName: "agent", messages: ["hi"] }]);
    expect(body[2]).toMatchObject({
      sourceDocuments: null,
      usedTools: null,
      fileUploads: null,
      artifacts: null,
      action: null,
      leadEmail: "ann@example.com",
    });
    for (const m of body) expect(m).not.toHaveProperty("feedback");
    // q4 and a4 share a millisecond: the question still comes first.
    expect(contents(body.slice(6))).toEqual(["q4", "a4"]);
  });

  it("answers null for a stored JSON field that does not parse (never a 500)", async () => {
    const flow = await createFlow();
    const [m] = await seedMessages(flow.id, [{ role: "apiMessage", chatId: "c", createdDate: "2026-01-01T00:00:00.000Z" }]);
    await env.DB.prepare("UPDATE chat_message SET sourceDocuments = ?, usedTools = ?, fileUploads = ? WHERE id = ?")
      .bind("{broken", "", "[]", m.id)
      .run();
    expect(await list(flow.id)).toEqual([{ ...presented(m), sourceDocuments: null, usedTools: null, fileUploads: [] }]);
  });

  it("answers [] for a chatflow without messages, and accepts the id in upper case", async () => {
    const flow = await createFlow();
    expect(await list(flow.id)).toEqual([]);
    const s = await conversation();
    expect(contents(await list(s.flow.id.toUpperCase()))).toEqual(contents(s.all));
  });

  it("orders ASC by default and DESC on request, case-insensitively", async () => {
    const s = await conversation();
    const asc = contents(s.all);
    const desc = [...asc].reverse();
    expect(contents(await list(s.flow.id, "?order=ASC"))).toEqual(asc);
    expect(contents(await list(s.flow.id, "?order=asc"))).toEqual(asc);
    expect(contents(await list(s.flow.id, "?order=DESC"))).toEqual(desc);
    expect(contents(await list(s.flow.id, "?order=desc"))).toEqual(desc);
    expect(contents(await list(s.flow.id, "?order=Desc"))).toEqual(desc);
  });

  it("filters by chatType", async () => {
    const s = await conversation();
    expect(await list(s.flow.id, "?chatType=INTERNAL")).toEqual([s.q3, s.a3].map((m) => presented(m)));
    expect(contents(await list(s.flow.id, "?chatType=EXTERNAL"))).toEqual(["q1", "a1", "q2", "a2", "q4", "a4"]);
  });

  it("filters by chatId", async () => {
    const s = await conversation();
    expect(await list(s.flow.id, "?chatId=c1")).toEqual([s.q1, s.a1, s.q2, s.a2].map((m) => presented(m)));
    expect(await list(s.flow.id, "?chatId=nope")).toEqual([]);
  });

  it("filters by memoryType", async () => {
    const s = await conversation();
    expect(contents(await list(s.flow.id, `?memoryType=${encodeURIComponent("Buffer Memory")}`))).toEqual(["q1", "a1", "q2", "a2"]);
    expect(contents(await list(s.flow.id, "?memoryType=Window+Memory"))).toEqual(["q4", "a4"]);
  });

  it("filters by sessionId", async () => {
    const s = await conversation();
    expect(contents(await list(s.flow.id, "?sessionId=s1"))).toEqual(["q1", "a1", "q2", "a2", "q4", "a4"]);
    expect(contents(await list(s.flow.id, "?sessionId=s2"))).toEqual(["q3", "a3"]);
  });

  it("bounds by startDate alone (inclusive; date-time or date)", async () => {
    const s = await conversation();
    expect(contents(await list(s.flow.id, "?startDate=2026-01-11T12:00:00.000Z"))).toEqual(["q2", "a2", "q3", "a3", "q4", "a4"]);
    expect(contents(await list(s.flow.id, "?startDate=2026-01-11T12:00:00.001Z"))).toEqual(["a2", "q3", "a3", "q4", "a4"]);
    expect(contents(await list(s.flow.id, "?startDate=2026-01-12"))).toEqual(["q3", "a3", "q4", "a4"]);
    // An offset is honoured: 13:00+01:00 is 12:00Z.
    expect(contents(await list(s.flow.id, `?startDate=${encodeURIComponent("2026-01-11T13:00:00+01:00")}`))).toEqual([
      "q2",
      "a2",
      "q3",
      "a3",
      "q4",
      "a4",
    ]);
  });

  it("bounds by endDate alone (inclusive; a date includes that whole day)", async () => {
    const s = await conversation();
    expect(contents(await list(s.flow.id, "?endDate=2026-01-11T12:00:00.000Z"))).toEqual(["q1", "a1", "q2"]);
    expect(contents(await list(s.flow.id, "?endDate=2026-01-12"))).toEqual(["q1", "a1", "q2", "a2", "q3", "a3"]);
    expect(contents(await list(s.flow.id, "?endDate=2026-01-09"))).toEqual([]);
  });

  it("bounds by startDate and endDate together", async () => {
    const s = await conversation();
    expect(contents(await list(s.flow.id, "?startDate=2026-01-11&endDate=2026-01-12"))).toEqual(["q2", "a2", "q3", "a3"]);
    expect(contents(await list(s.flow.id, "?startDate=2026-01-12&endDate=2026-01-12"))).toEqual(["q3", "a3"]);
    expect(contents(await list(s.flow.id, "?startDate=2026-01-10T09:00:00.500Z&endDate=2026-01-11T12:00:00.500Z"))).toEqual(["a1", "q2"]);
    expect(await list(s.flow.id, "?startDate=2026-01-13&endDate=2026-01-10")).toEqual([]);
  });

  it("combines chatId, sessionId, a date range and order", async () => {
    const s = await conversation();
    expect(await list(s.flow.id, "?chatId=c1&sessionId=s1&startDate=2026-01-11&endDate=2026-01-11&order=DESC")).toEqual(
      [s.a2, s.q2].map((m) => presented(m)),
    );
    expect(contents(await list(s.flow.id, "?sessionId=s1&chatType=EXTERNAL&memoryType=Window%20Memory&order=desc"))).toEqual(["a4", "q4"]);
    expect(await list(s.flow.id, "?chatId=c1&sessionId=s2")).toEqual([]);
  });

  it("feedback=true keeps the rated answers with the question before each, feedback attached", async () => {
    const s = await conversation();
    const body = await list(s.flow.id, "?feedback=true");
    expect(body).toEqual([presented(s.q1), presented(s.a1, s.up), presented(s.q3), presented(s.a3, s.down)]);
    expect(body[1].feedback).toEqual({
      id: s.up.id,
      chatflowid: s.flow.id,
      chatId: "c1",
      messageId: s.a1.id,
      rating: "THUMBS_UP",
      content: "good",
      createdDate: "2026-01-10T10:00:00.000Z",
    });
    expect(body[0]).not.toHaveProperty("feedback");
    expect(contents(await list(s.flow.id, "?feedback=true&order=DESC"))).toEqual(["a3", "q3", "a1", "q1"]);
  });

  it("feedback=true&feedbackType narrows by rating", async () => {
    const s = await conversation();
    expect(await list(s.flow.id, "?feedback=true&feedbackType=THUMBS_DOWN")).toEqual([presented(s.q3), presented(s.a3, s.down)]);
    expect(await list(s.flow.id, "?feedback=true&feedbackType=THUMBS_UP")).toEqual([presented(s.q1), presented(s.a1, s.up)]);
  });

  it("feedback=false, or feedbackType without feedback, behaves like no feedback filter", async () => {
    const s = await conversation();
    const plain = s.all.map((m) => presented(m));
    expect(await list(s.flow.id, "?feedback=false")).toEqual(plain);
    expect(await list(s.flow.id, "?feedbackType=THUMBS_DOWN")).toEqual(plain);
  });

  it("feedback=true picks the question just before in the same chat, never another chat's", async () => {
    const flow = await createFlow();
    const base = "2026-02-01T10:00:00.000Z";
    const [u1, a1, u2, a2, otherQ, lone, , a3] = await seedMessages(flow.id, [
      { role: "userMessage", chatId: "x", createdDate: at(base, 0) },
      { role: "apiMessage", chatId: "x", createdDate: at(base, 1000) },
      { role: "userMessage", chatId: "x", createdDate: at(base, 2000) },
      { role: "apiMessage", chatId: "x", createdDate: at(base, 4000) },
      // A question of another chat, later than x's last question but before a2.
      { role: "userMessage", chatId: "y", createdDate: at(base, 3000) },
      // A rated answer with no question before it in its chat.
      { role: "apiMessage", chatId: "z", createdDate: at(base, 5000) },
      { role: "userMessage", chatId: "w", createdDate: at(base, 6000) },
      { role: "apiMessage", chatId: "w", createdDate: at(base, 6000) },
    ]);
    const [f2, fLone, f3] = await seedFeedback([
      { message: a2, rating: "THUMBS_UP" },
      { message: lone, rating: "THUMBS_DOWN" },
      { message: a3, rating: "THUMBS_UP" },
    ]);
    const body = await list(flow.id, "?feedback=true");
    const w = body.find((m) => m.id === a3.id);
    expect(body.map((m) => m.id)).toEqual([u2.id, a2.id, lone.id, body[3].id, a3.id]);
    expect(body[3]).toMatchObject({ chatId: "w", role: "userMessage" });
    expect(body[1].feedback).toEqual(f2);
    expect(body[2].feedback).toEqual(fLone);
    expect(w.feedback).toEqual(f3);
    expect(body.map((m) => m.id)).not.toContain(u1.id);
    expect(body.map((m) => m.id)).not.toContain(a1.id);
    expect(body.map((m) => m.id)).not.toContain(otherQ.id);
  });

  it("combines feedback with chatType and dates (the range bounds the questions too)", async () => {
    const s = await conversation();
    expect(await list(s.flow.id, "?feedback=true&chatType=INTERNAL&startDate=2026-01-12&endDate=2026-01-12")).toEqual([
      presented(s.q3),
      presented(s.a3, s.down),
    ]);
    expect(await list(s.flow.id, "?feedback=true&chatType=EXTERNAL&endDate=2026-01-12")).toEqual([presented(s.q1), presented(s.a1, s.up)]);
    expect(await list(s.flow.id, "?feedback=true&chatType=INTERNAL&endDate=2026-01-11")).toEqual([]);
    // The answer a1 lies in the range, its question q1 (one second earlier) does not.
    expect(await list(s.flow.id, "?feedback=true&startDate=2026-01-10T09:00:00.500Z&endDate=2026-01-10")).toEqual([presented(s.a1, s.up)]);
    expect(await list(s.flow.id, "?feedback=true&feedbackType=THUMBS_UP&chatType=INTERNAL")).toEqual([]);
  });

  it("answers 404 for an unknown chatflow, 400 for a malformed id", async () => {
    const res = await call("GET", `/chatmessage/${uuid()}`);
    expect((await expectError(res, 404)).message).toMatch(/not found/i);
    await expectError(await call("GET", "/chatmessage/not-a-uuid"), 400);
  });

  it("answers 400 JSON for bad query values", async () => {
    const s = await conversation();
    for (const query of [
      "order=sideways",
      "feedback=yes",
      "feedback=1",
      "feedback=",
      "chatType=FOO",
      "chatType=external",
      "feedback=true&feedbackType=MEH",
      "feedbackType=MEH",
      "startDate=notadate",
      "endDate=2026-13-45",
      "startDate=2026-01-11T25:00:00Z",
      "endDate=yesterday",
    ]) {
      const error = await expectError(await call("GET", `/chatmessage/${s.flow.id}?${query}`), 400);
      expect(error.message, query).toMatch(/query/i);
    }
  });

  it("needs a valid bearer token", async () => {
    const s = await conversation();
    await expectError(await call("GET", `/chatmessage/${s.flow.id}`, { token: null }), 401);
    await expectError(await call("GET", `/chatmessage/${s.flow.id}`, { token: "not-a-real-key-not-a-real-key" }), 401);
    // The chatflow being public changes nothing: messages are never public.
    const pub = await createFlow({ isPublic: true });
    await expectError(await call("GET", `/chatmessage/${pub.id}`, { token: null }), 401);
    expect((await call("GET", `/chatmessage/${s.flow.id}`, { token: ADMIN_KEY })).status).toBe(200);
  });

  it("is described in the OpenAPI document with its query parameters", async () => {
    const spec = await json("GET", "/openapi.json", { token: null });
    const path = spec.paths["/chatmessage/{chatflowid}"];
    const names = (op: { parameters: { name: string }[] }) => op.parameters.map((p) => p.name).sort();
    expect(names(path.get)).toEqual([
      "chatId",
      "chatType",
      "chatType[]",
      "chatflowid",
      "endDate",
      "feedback",
      "feedbackType",
      "memoryType",
      "order",
      "sessionId",
      "startDate",
    ]);
    expect(names(path.delete)).toEqual([
      "chatId",
      "chatType",
      "chatType[]",
      "chatflowid",
      "endDate",
      "feedbackType",
      "hardDelete",
      "memoryType",
      "sessionId",
      "startDate",
    ]);
    for (const p of ["/feedback", "/feedback/{id}", "/leads", "/leads/{chatflowid}", "/upsert-history", "/upsert-history/{chatflowid}"]) {
      expect(Object.keys(spec.paths), p).toContain(p);
    }
    expect(Object.keys(spec.paths["/upsert-history/{chatflowid}"]).sort()).toEqual(["get", "patch"]);
  });

  it("lists the messages recorded under an assistant id", async () => {
    const assistant = await json("POST", "/assistants", { body: { details: { name: "helper", model: "gpt-4o" } } });
    const [q, a] = await seedMessages(assistant.id, [
      { role: "userMessage", chatId: "c", createdDate: "2026-03-01T00:00:00.000Z" },
      { role: "apiMessage", chatId: "c", createdDate: "2026-03-01T00:00:01.000Z" },
    ]);
    expect(await list(assistant.id)).toEqual([presented(q), presented(a)]);
  });
});

describe("DELETE /chatmessage/{chatflowid}", () => {
  /** What is left of the chatflow's messages, by content. */
  const left = async (flowId: string) => contents(await list(flowId));
  const feedbackOf = async (messageIds: string[]) =>
    (
      await rowsOf<{ messageId: string }>(
        `SELECT messageId FROM chat_message_feedback WHERE messageId IN (${messageIds.map(() => "?").join(",")})`,
        ...messageIds,
      )
    ).map((r) => r.messageId);

  it("without filters removes every message and feedback of the chatflow, nothing of other chatflows", async () => {
    const s = await conversation();
    expect(await remove(s.flow.id)).toEqual({ deleted: 8 });
    expect(await list(s.flow.id)).toEqual([]);
    expect(await countOf("chat_message", "chatflowid = ?", s.flow.id)).toBe(0);
    expect(await countOf("chat_message_feedback", "chatflowid = ?", s.flow.id)).toBe(0);
    expect(await list(s.other.id)).toEqual([presented(s.stranger)]);
    expect(await feedbackOf([s.stranger.id])).toEqual([s.stranger.id]);
    // Again: nothing left to delete.
    expect(await remove(s.flow.id)).toEqual({ deleted: 0 });
  });

  it("filters by chatId, removing that chat's feedback only", async () => {
    const s = await conversation();
    expect(await remove(s.flow.id, "?chatId=c1")).toEqual({ deleted: 4 });
    expect(await left(s.flow.id)).toEqual(["q3", "a3", "q4", "a4"]);
    expect(await feedbackOf([s.a1.id, s.a3.id])).toEqual([s.a3.id]);
    // Chat c1 of the other chatflow is untouched.
    expect(await list(s.other.id)).toEqual([presented(s.stranger)]);
  });

  it("filters by sessionId", async () => {
    const s = await conversation();
    expect(await remove(s.flow.id, "?sessionId=s1")).toEqual({ deleted: 6 });
    expect(await left(s.flow.id)).toEqual(["q3", "a3"]);
  });

  it("filters by memoryType", async () => {
    const s = await conversation();
    expect(await remove(s.flow.id, "?memoryType=Window%20Memory")).toEqual({ deleted: 2 });
    expect(await left(s.flow.id)).toEqual(["q1", "a1", "q2", "a2", "q3", "a3"]);
  });

  it("filters by chatType", async () => {
    const s = await conversation();
    expect(await remove(s.flow.id, "?chatType=INTERNAL")).toEqual({ deleted: 2 });
    expect(await left(s.flow.id)).toEqual(["q1", "a1", "q2", "a2", "q4", "a4"]);
    expect(await feedbackOf([s.a1.id, s.a3.id])).toEqual([s.a1.id]);
  });

  it("filters by startDate alone", async () => {
    const s = await conversation();
    expect(await remove(s.flow.id, "?startDate=2026-01-12")).toEqual({ deleted: 4 });
    expect(await left(s.flow.id)).toEqual(["q1", "a1", "q2", "a2"]);
  });

  it("filters by endDate alone (a date includes that whole day)", async () => {
    const s = await conversation();
    expect(await remove(s.flow.id, "?endDate=2026-01-12")).toEqual({ deleted: 6 });
    expect(await left(s.flow.id)).toEqual(["q4", "a4"]);
  });

  it("filters by a date range", async () => {
    const s = await conversation();
    expect(await remove(s.flow.id, "?startDate=2026-01-11T12:00:00.000Z&endDate=2026-01-12T00:00:00.000Z")).toEqual({ deleted: 3 });
    expect(await left(s.flow.id)).toEqual(["q1", "a1", "a3", "q4", "a4"]);
  });

  it("combines filters", async () => {
    const s = await conversation();
    expect(await remove(s.flow.id, "?chatId=c1&sessionId=s1&startDate=2026-01-11&endDate=2026-01-11")).toEqual({ deleted: 2 });
    expect(await left(s.flow.id)).toEqual(["q1", "a1", "q3", "a3", "q4", "a4"]);
    expect(await remove(s.flow.id, "?sessionId=s1&chatType=INTERNAL")).toEqual({ deleted: 0 });
    expect(await remove(s.flow.id, "?sessionId=s1&memoryType=Buffer%20Memory&chatType=EXTERNAL")).toEqual({ deleted: 2 });
    expect(await left(s.flow.id)).toEqual(["q3", "a3", "q4", "a4"]);
    expect(await feedbackOf([s.a1.id, s.a3.id])).toEqual([s.a3.id]);
  });

  it("answers {deleted: 0} when nothing matches, and deletes nothing", async () => {
    const s = await conversation();
    expect(await remove(s.flow.id, "?chatId=nope")).toEqual({ deleted: 0 });
    expect(await remove(s.flow.id, "?feedbackType=THUMBS_UP&chatType=INTERNAL")).toEqual({ deleted: 0 });
    expect(await left(s.flow.id)).toEqual(contents(s.all));
  });

  it("feedbackType deletes the rated answers of that type and the question before each", async () => {
    const s = await conversation();
    expect(await remove(s.flow.id, "?feedbackType=THUMBS_DOWN")).toEqual({ deleted: 2 });
    expect(await left(s.flow.id)).toEqual(["q1", "a1", "q2", "a2", "q4", "a4"]);
    expect(await feedbackOf([s.a1.id, s.a3.id])).toEqual([s.a1.id]);
    expect(await remove(s.flow.id, "?feedbackType=THUMBS_UP&chatType=EXTERNAL&chatId=c1")).toEqual({ deleted: 2 });
    expect(await left(s.flow.id)).toEqual(["q2", "a2", "q4", "a4"]);
    expect(await countOf("chat_message_feedback", "chatflowid = ?", s.flow.id)).toBe(0);
    expect(await feedbackOf([s.stranger.id])).toEqual([s.stranger.id]);
  });

  it("feedbackType with a date range deletes only messages inside the range", async () => {
    const s = await conversation();
    // a1 lies in the range, its question q1 one second before it does not: q1 stays.
    expect(await remove(s.flow.id, "?feedbackType=THUMBS_UP&startDate=2026-01-10T09:00:00.500Z&endDate=2026-01-10")).toEqual({
      deleted: 1,
    });
    expect(await left(s.flow.id)).toEqual(["q1", "q2", "a2", "q3", "a3", "q4", "a4"]);
    expect(await feedbackOf([s.a1.id, s.a3.id])).toEqual([s.a3.id]);
    expect(await remove(s.flow.id, "?feedbackType=THUMBS_DOWN&startDate=2026-01-12&endDate=2026-01-12")).toEqual({ deleted: 2 });
    expect(await left(s.flow.id)).toEqual(["q1", "q2", "a2", "q4", "a4"]);
  });

  it("accepts hardDelete=false and hardDelete=true, refuses other values", async () => {
    const s = await conversation();
    expect(await remove(s.flow.id, "?chatId=c2&hardDelete=false")).toEqual({ deleted: 2 });
    expect(await remove(s.flow.id, "?chatId=c3&hardDelete=true")).toEqual({ deleted: 2 });
    expect(await left(s.flow.id)).toEqual(["q1", "a1", "q2", "a2"]);
    for (const value of ["maybe", "1", "yes", ""]) {
      await expectError(await call("DELETE", `/chatmessage/${s.flow.id}?hardDelete=${value}`), 400);
    }
    expect(await left(s.flow.id)).toEqual(["q1", "a1", "q2", "a2"]);
    expect(await remove(s.flow.id, "?hardDelete=true")).toEqual({ deleted: 4 });
  });

  it("deletes the uploaded files of the deleted messages and keeps other chats' files", async () => {
    const flow = await createFlow();
    const other = await createFlow();
    const upload = (name: string) => [{ type: "stored-file", name, mime: "text/plain" }];
    const keyA = await putFile(`${flow.id}/chat-a/a.txt`);
    const keyA2 = await putFile(`${flow.id}/chat-a/second.txt`);
    const keyB = await putFile(`${flow.id}/chat-b/b.txt`);
    const keyOther = await putFile(`${other.id}/chat-a/a.txt`);
    await seedMessages(flow.id, [
      { role: "userMessage", chatId: "chat-a", createdDate: "2026-04-01T00:00:00.000Z", fileUploads: upload("a.txt") },
      { role: "apiMessage", chatId: "chat-a", createdDate: "2026-04-01T00:00:01.000Z" },
      {
        role: "userMessage",
        chatId: "chat-a",
        createdDate: "2026-04-02T00:00:00.000Z",
        fileUploads: [...upload("second.txt"), { type: "url", name: "remote.png", data: "https://example.com/remote.png" }],
      },
      { role: "userMessage", chatId: "chat-b", createdDate: "2026-04-01T00:00:00.000Z", fileUploads: upload("b.txt") },
    ]);
    await seedMessages(other.id, [
      { role: "userMessage", chatId: "chat-a", createdDate: "2026-04-01T00:00:00.000Z", fileUploads: upload("a.txt") },
    ]);

    // Only the first day of chat-a: a.txt goes, second.txt (a later message) stays.
    expect(await remove(flow.id, "?chatId=chat-a&endDate=2026-04-01")).toEqual({ deleted: 2 });
    expect(await fileExists(keyA)).toBe(false);
    expect(await fileExists(keyA2)).toBe(true);
    expect(await fileExists(keyB)).toBe(true);

    expect(await remove(flow.id, "?chatId=chat-a")).toEqual({ deleted: 1 });
    expect(await fileExists(keyA2)).toBe(false);
    expect(await fileExists(keyB)).toBe(true);
    expect(await fileExists(keyOther)).toBe(true);
    expect(await list(other.id)).toHaveLength(1);
  });

  it("unfiltered, deletes the uploads its messages recorded: not the chatflow's vector-upsert files, nothing of other chatflows", async () => {
    const flow = await createFlow();
    const other = await createFlow();
    await putFile(`${flow.id}/c1/a.txt`);
    await putFile(`${flow.id}/c2/b.txt`);
    const upserted = await putFile(`${flow.id}/town.txt`); // where POST /vector/upsert keeps a loader's file
    const keep = await putFile(`${other.id}/c1/a.txt`);
    await seedMessages(flow.id, [
      {
        role: "userMessage",
        chatId: "c1",
        createdDate: "2026-04-01T00:00:00.000Z",
        fileUploads: [{ type: "stored-file", name: "a.txt", mime: "text/plain" }],
      },
      {
        role: "userMessage",
        chatId: "c2",
        createdDate: "2026-04-01T00:00:00.000Z",
        fileUploads: [{ type: "stored-file", name: "b.txt", mime: "text/plain" }],
      },
      { role: "userMessage", chatId: "c3", createdDate: "2026-04-01T00:00:00.000Z" },
    ]);
    expect(await remove(flow.id)).toEqual({ deleted: 3 });
    expect(await keysUnder(`${flow.id}/`)).toEqual([upserted]);
    expect(await fileExists(keep)).toBe(true);
  });

  it("deletes 250 messages at once (more than D1's 100 bound parameters), with their feedback and files", async () => {
    const flow = await createFlow();
    const base = "2026-05-01T00:00:00.000Z";
    const messages = await seedMessages(
      flow.id,
      Array.from({ length: 250 }, (_, i) => ({
        role: (i % 2 === 0 ? "userMessage" : "apiMessage") as "userMessage" | "apiMessage",
        chatId: `chat-${Math.floor(i / 10)}`,
        createdDate: at(base, i * 1000),
        fileUploads: i % 2 === 0 ? [{ type: "stored-file", name: `f${i}.txt`, mime: "text/plain" }] : undefined,
      })),
    );
    for (const m of messages.filter((_, i) => i % 2 === 0))
      await putFile(`${flow.id}/${m.chatId}/${(m.fileUploads as { name: string }[])[0].name}`);
    await seedFeedback(
      messages
        .filter((m) => m.role === "apiMessage")
        .map((m, i) => ({ message: m, rating: i % 3 === 0 ? ("THUMBS_DOWN" as const) : ("THUMBS_UP" as const) })),
    );
    expect(await list(flow.id)).toHaveLength(250);

    // 125 answers rated: 42 THUMBS_DOWN answers and their 42 questions.
    const downs = Math.ceil(125 / 3);
    expect(await list(flow.id, "?feedback=true&feedbackType=THUMBS_DOWN")).toHaveLength(downs * 2);
    expect(await remove(flow.id, "?feedbackType=THUMBS_DOWN")).toEqual({ deleted: downs * 2 });
    expect(await countOf("chat_message_feedback", "chatflowid = ? AND rating = 'THUMBS_DOWN'", flow.id)).toBe(0);
    expect((await keysUnder(`${flow.id}/`)).length).toBe(125 - downs);

    // A filtered delete of everything that is left (a date range: the per-message file path).
    const rest = 250 - downs * 2;
    expect(await remove(flow.id, "?startDate=2026-05-01&endDate=2026-05-02")).toEqual({ deleted: rest });
    expect(await countOf("chat_message", "chatflowid = ?", flow.id)).toBe(0);
    expect(await countOf("chat_message_feedback", "chatflowid = ?", flow.id)).toBe(0);
    expect(await keysUnder(`${flow.id}/`)).toEqual([]);
  }, 30_000); // 250 rows with feedback and files: seconds on a loaded machine

  it("deletes 250 messages unfiltered", async () => {
    const flow = await createFlow();
    const messages = await seedMessages(
      flow.id,
      Array.from({ length: 250 }, (_, i) => ({
        role: (i % 2 === 0 ? "userMessage" : "apiMessage") as "userMessage" | "apiMessage",
        chatId: `chat-${i % 7}`,
        createdDate: at("2026-06-01T00:00:00.000Z", i),
      })),
    );
    await seedFeedback(messages.filter((m) => m.role === "apiMessage").map((m) => ({ message: m, rating: "THUMBS_UP" as const })));
    expect(await remove(flow.id)).toEqual({ deleted: 250 });
    expect(await list(flow.id)).toEqual([]);
    expect(await countOf("chat_message_feedback", "chatflowid = ?", flow.id)).toBe(0);
  });

  it("answers 404 for an unknown chatflow, 400 for bad input, 401 without a token", async () => {
    const s = await conversation();
    await expectError(await call("DELETE", `/chatmessage/${uuid()}`), 404);
    await expectError(await call("DELETE", "/chatmessage/not-a-uuid"), 400);
    for (const query of ["chatType=FOO", "feedbackType=MEH", "startDate=notadate", "endDate=2026-02-30T99:00:00Z"]) {
      await expectError(await call("DELETE", `/chatmessage/${s.flow.id}?${query}`), 400);
    }
    await expectError(await call("DELETE", `/chatmessage/${s.flow.id}`, { token: null }), 401);
    await expectError(await call("DELETE", `/chatmessage/${s.flow.id}`, { token: "not-a-real-key-not-a-real-key" }), 401);
    const pub = await createFlow({ isPublic: true });
    await expectError(await call("DELETE", `/chatmessage/${pub.id}`, { token: null }), 401);
    expect(await left(s.flow.id)).toEqual(contents(s.all));
  });
});

describe("impossible dates", () => {
  it("refuses a day that does not exist instead of rolling it over", async () => {
    const { call, expectError } = await import("../helpers");
    const flow = await (await call("POST", "/chatflows", { body: { name: "d", flowData: "{}" } })).json<{ id: string }>();
    await expectError(await call("GET", `/chatmessage/${flow.id}?startDate=2026-02-30`), 400);
    await expectError(await call("GET", `/chatmessage/${flow.id}?endDate=2026-13-01T00:00:00.000Z`), 400);
    expect((await call("GET", `/chatmessage/${flow.id}?startDate=2026-02-28&endDate=2026-03-01T10:00:00%2B02:00`)).status).toBe(200);
  });
});
