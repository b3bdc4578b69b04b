import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { call, json } from "../helpers";

it("smoke: chatflow, messages with feedback filter, delete", async () => {
  const flow = await json("POST", "/chatflows", { body: { name: "f", flowData: '{"nodes":[],"edges":[]}' } });
  const ins = env.DB.prepare("INSERT INTO chat_message (id, role, chatflowid, content, chatType, chatId, sessionId, createdDate) VALUES (?,?,?,?,?,?,?,?)");
  const u1 = crypto.randomUUID(), a1 = crypto.randomUUID(), u2 = crypto.randomUUID(), a2 = crypto.randomUUID();
  await env.DB.batch([
    ins.bind(u1, "userMessage", flow.id, "q1", "EXTERNAL", "c1", "c1", "2026-01-01T00:00:00.000Z"),
    ins.bind(a1, "apiMessage", flow.id, "a1", "EXTERNAL", "c1", "c1", "2026-01-01T00:00:01.000Z"),
    ins.bind(u2, "userMessage", flow.id, "q2", "EXTERNAL", "c1", "c1", "2026-01-01T00:00:02.000Z"),
    ins.bind(a2, "apiMessage", flow.id, "a2", "EXTERNAL", "c1", "c1", "2026-01-01T00:00:03.000Z"),
  ]);
  const fb = await json("POST", "/feedback", { body: { messageId: a2, rating: "THUMBS_UP" } });
  expect(fb).toMatchObject({ chatflowid: flow.id, chatId: "c1", messageId: a2 });
  const all = await json("GET", `/chatmessage/${flow.id}`);
  expect(all.map((m: any) => m.content)).toEqual(["q1", "a1", "q2", "a2"]);
  const rated = await json("GET", `/chatmessage/${flow.id}?feedback=true`);
  expect(rated.map((m: any) => m.content)).toEqual(["q2", "a2"]);
  expect(rated[1].feedback.id).toBe(fb.id);
  expect((await call("GET", `/chatmessage/${flow.id}?feedback=maybe`)).status).toBe(400);
  expect(await json("DELETE", `/chatmessage/${flow.id}?feedbackType=THUMBS_UP`)).toEqual({ deleted: 2 });
  expect((await json("GET", `/chatmessage/${flow.id}`)).map((m: any) => m.content)).toEqual(["q1", "a1"]);
  const spec = await json("GET", "/openapi.json", { token: null });
  expect(Object.keys(spec.paths)).toContain("/chatmessage/{chatflowid}");
});
