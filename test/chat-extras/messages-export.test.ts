// POST /export-import/chatflow-messages: the file View Messages' "Export" downloads.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, json, uuid } from "../helpers";
import { keyWith } from "../security/keys";

let flowId: string;

async function message(row: Record<string, unknown>): Promise<string> {
  const id = uuid();
  const m: Record<string, unknown> = { role: "userMessage", content: "", chatType: "INTERNAL", chatId: "c1", ...row };
  await env.DB.prepare(
    "INSERT INTO chat_message (id, role, chatflowid, content, chatType, chatId, memoryType, sessionId, leadEmail, fileUploads, sourceDocuments, artifacts, createdDate) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
  )
    .bind(
      id,
      m.role,
      flowId,
      m.content,
      m.chatType,
      m.chatId,
      m.memoryType ?? null,
      m.sessionId ?? null,
      m.leadEmail ?? null,
      m.fileUploads ?? null,
      m.sourceDocuments ?? null,
      m.artifacts ?? null,
      m.createdDate,
    )
    .run();
  return id;
}

const rate = (messageId: string, chatId: string, rating: string, content: string) =>
  env.DB.prepare(
    "INSERT INTO chat_message_feedback (id, chatflowid, chatId, messageId, rating, content, createdDate) VALUES (?,?,?,?,?,?,?)",
  )
    .bind(uuid(), flowId, chatId, messageId, rating, content, "2026-03-01T00:00:00.000Z")
    .run();

const exportOf = (body: Record<string, unknown>, token?: string) =>
  call("POST", "/export-import/chatflow-messages", { body: { chatflowId: flowId, ...body }, token });

beforeAll(async () => {
  flowId = (await json("POST", "/chatflows", { body: { name: `export ${uuid()}`, flowData: '{"nodes":[],"edges":[]}' } })).id;
  await message({
    content: "What is rain?",
    createdDate: "2026-03-01T10:00:00.000Z",
    fileUploads: '[{"type":"stored-file","name":"a.png","mime":"image/png"}]',
  });
  const a1 = await message({
    role: "apiMessage",
    content: "Water falling.",
    createdDate: "2026-03-01T10:00:01.000Z",
    sourceDocuments: '[{"pageContent":"rain doc","metadata":{}}]',
    artifacts: '[{"type":"png","data":"FILE-STORAGE::chart.png"}]',
  });
  await rate(a1, "c1", "THUMBS_UP", "clear");
  await message({
    content: "Hi from the widget",
    chatType: "EXTERNAL",
    chatId: "c2",
    sessionId: "s2",
    memoryType: "Buffer Memory",
    leadEmail: "ada@example.com",
    createdDate: "2026-03-05T09:00:00.000Z",
  });
  const a2 = await message({
    role: "apiMessage",
    content: "Hello!",
    chatType: "EXTERNAL",
    chatId: "c2",
    sessionId: "s2",
    memoryType: "Buffer Memory",
    createdDate: "2026-03-05T09:00:01.000Z",
  });
  await rate(a2, "c2", "THUMBS_DOWN", "rude");
});

describe("POST /export-import/chatflow-messages", () => {
  it("answers conversations newest first, their messages oldest first, with feedback, sources and file URLs", async () => {
    const res = await exportOf({});
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${flowId}-Message.json"`);
    const body = await res.json();
    const base = "http://edgeflow.test/api/v1/get-upload-file";
    expect(body).toEqual([
      {
        id: "c2",
        source: "API/Embed",
        sessionId: "s2",
        memoryType: "Buffer Memory",
        email: "ada@example.com",
        messages: [
          { content: "Hi from the widget", role: "user", time: "2026-03-05T09:00:00.000Z" },
          { content: "Hello!", role: "bot", time: "2026-03-05T09:00:01.000Z", feedback: "rude", rating: "THUMBS_DOWN" },
        ],
      },
      {
        id: "c1",
        source: "UI",
        sessionId: null,
        memoryType: null,
        email: null,
        messages: [
          {
            content: "What is rain?",
            role: "user",
            time: "2026-03-01T10:00:00.000Z",
            filePaths: [`${base}?chatflowId=${flowId}&chatId=c1&fileName=a.png`],
          },
          {
            content: "Water falling.",
            role: "bot",
            time: "2026-03-01T10:00:01.000Z",
            sourceDocuments: [{ pageContent: "rain doc", metadata: {} }],
            artifacts: [{ type: "png", data: `${base}?chatflowId=${flowId}&chatId=c1&fileName=chart.png` }],
            feedback: "clear",
            rating: "THUMBS_UP",
          },
        ],
      },
    ]);
  });

  it("filters by chat type, feedback and dates as View Messages sends them", async () => {
    const ids = async (body: Record<string, unknown>) =>
      ((await (await exportOf(body)).json()) as { id: string; messages: unknown[] }[]).map((c) => `${c.id}:${c.messages.length}`);
    expect(await ids({ chatType: ["INTERNAL"] })).toEqual(["c1:2"]);
    expect(await ids({ chatType: "EXTERNAL" })).toEqual(["c2:2"]);
    expect(await ids({ feedbackType: ["THUMBS_DOWN"] })).toEqual(["c2:2"]);
    expect(await ids({ feedbackType: ["THUMBS_UP", "THUMBS_DOWN"] })).toEqual(["c2:2", "c1:2"]);
    expect(await ids({ startDate: "2026-03-02", endDate: "2026-03-31" })).toEqual(["c2:2"]);
    expect(await ids({ endDate: "2026-03-01T10:00:00.500Z" })).toEqual(["c1:1"]);
    // Flowise also reads a JSON array in text; null filters nothing.
    expect(await ids({ chatType: '["EXTERNAL"]', feedbackType: null, startDate: null, endDate: null })).toEqual(["c2:2"]);
  });

  it("reads like GET /chatmessage: a key needs view on that chatflow, in its reach", async () => {
    await expectError(await call("POST", "/export-import/chatflow-messages", { body: { chatflowId: flowId }, token: null }), 401);
    const tools = await keyWith(["tools:view"]);
    await expectError(await exportOf({}, tools.apiKey), 403);
    const elsewhere = await keyWith(["chatflows:view"], [(await json("POST", "/chatflows", { body: { name: "x", flowData: "{}" } })).id]);
    await expectError(await exportOf({}, elsewhere.apiKey), 403);
    const viewer = await keyWith(["chatflows:view"], [flowId]);
    expect((await exportOf({}, viewer.apiKey)).status).toBe(200);
  });

  it("bad input is a clear 400; an unknown chatflow 404", async () => {
    await expectError(await call("POST", "/export-import/chatflow-messages", { body: {} }), 400);
    await expectError(await exportOf({ chatType: ["NOPE"] }), 400);
    await expectError(await exportOf({ startDate: "yesterday" }), 400);
    await expectError(await call("POST", "/export-import/chatflow-messages", { body: { chatflowId: uuid() } }), 404);
  });
});
