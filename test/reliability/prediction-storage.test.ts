// Issue 9.3 and 9.5: how a prediction stores its exchange.
// - A chatflow deleted while its run is in progress gets nothing stored (the messages are written
//   in one batch conditional on the chatflow still existing), and its uploads do not linger in R2:
//   a chatflow re-created with the same id starts with an empty history.
// - Concurrent turns in one chat are stored question/answer adjacent, in strictly increasing time.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { marker, requestsWith } from "../engine/helpers";
import { call, expectError, json, uuid } from "../helpers";
import { saveEchoFlow, until } from "./helpers";

const messagesOf = (flowId: string, query = "") => json<any[]>("GET", `/chatmessage/${flowId}${query}`);
const rowsFor = async (flowId: string) =>
  (await env.DB.prepare("SELECT role, content FROM chat_message WHERE chatflowid = ?").bind(flowId).all()).results;
const note = (text: string) => `data:text/plain;base64,${btoa(text)}`;

describe("a chatflow deleted mid-run", () => {
  it("JSON: the run answers 404 and stores neither message nor upload; a re-created id has no history", async () => {
    const id = await saveEchoFlow();
    const flow = await json("GET", `/chatflows/${id}`);
    const m = marker();
    // [slow]: the stand-in waits 1 s before answering, time enough to delete the chatflow.
    const pending = call("POST", `/prediction/${id}`, {
      body: {
        question: `[slow] ${m}`,
        chatId: `c-${m}`,
        uploads: [{ type: "file", name: "note.txt", mime: "text/plain", data: note("hello") }],
      },
    });
    await until("the model call", async () => ((await requestsWith(m)).length ? true : undefined));
    expect(await json("DELETE", `/chatflows/${id}`)).toEqual({ deleted: 1 });

    const err = await expectError(await pending, 404);
    expect(err.message).toMatch(/deleted/);
    expect(await rowsFor(id)).toEqual([]);
    expect((await env.FILES.list({ prefix: `${id}/` })).objects).toEqual([]);

    await json("POST", "/chatflows", { body: { id, name: flow.name, flowData: flow.flowData } });
    expect(await messagesOf(id)).toEqual([]);
  });

  it("streaming: an error frame instead of metadata, and nothing stored", async () => {
    const id = await saveEchoFlow();
    const m = marker();
    const res = await call("POST", `/prediction/${id}`, { body: { question: `[slow] ${m} a b`, streaming: true } });
    expect(res.status).toBe(200);
    await until("the model call", async () => ((await requestsWith(m)).length ? true : undefined));
    await json("DELETE", `/chatflows/${id}`);
    const text = await res.text();
    expect(text).toContain('"event":"error"');
    expect(text).toMatch(/deleted/);
    expect(text).not.toContain('"event":"metadata"');
    expect(text).toContain('"event":"end"');
    expect(await rowsFor(id)).toEqual([]);
  });

  it("the control case: a chatflow that stays stores its exchange", async () => {
    const id = await saveEchoFlow();
    const answer = await json("POST", `/prediction/${id}`, { body: { question: "still here" } });
    expect((await messagesOf(id)).map((x) => [x.role, x.content, x.id === answer.chatMessageId])).toEqual([
      ["userMessage", "still here", false],
      ["apiMessage", "echo: still here", true],
    ]);
  });
});

describe("concurrent turns in one chat", () => {
  it("10 concurrent predictions in one chatId: each question directly followed by its own answer, times strictly increasing", async () => {
    const id = await saveEchoFlow();
    const chatId = `chat-${uuid()}`;
    const m = marker();
    // [slow] holds every answer for 1 s, so all ten runs are in flight together.
    const questions = Array.from({ length: 10 }, (_, i) => `[slow] ${m} turn ${i}`);
    const answers = await Promise.all(questions.map((question) => json("POST", `/prediction/${id}`, { body: { question, chatId } })));
    expect(answers.map((a) => a.text)).toEqual(questions.map((q) => `echo: ${q}`));

    const stored = await messagesOf(id, `?chatId=${chatId}`);
    expect(stored).toHaveLength(20);
    for (let i = 0; i < 20; i += 2) {
      expect(stored[i].role).toBe("userMessage");
      expect(stored[i + 1].role).toBe("apiMessage");
      expect(stored[i + 1].content).toBe(`echo: ${stored[i].content}`);
    }
    const times = stored.map((x) => x.createdDate);
    for (let i = 1; i < times.length; i++) expect(times[i] > times[i - 1], `${times[i - 1]} < ${times[i]}`).toBe(true);
    expect(new Set(stored.filter((x) => x.role === "userMessage").map((x) => x.content))).toEqual(new Set(questions));
    // Newest first is the same pairs, reversed.
    expect((await messagesOf(id, `?chatId=${chatId}&order=DESC`)).map((x) => x.id)).toEqual(stored.map((x) => x.id).reverse());
  }, 30_000);

  it("a lone turn keeps the request's start as its question's time", async () => {
    const id = await saveEchoFlow();
    const before = new Date().toISOString();
    await json("POST", `/prediction/${id}`, { body: { question: "[slow] when" } });
    const [question, answer] = await messagesOf(id);
    // The question is stamped when the request started, about a second before the answer.
    expect(question.createdDate >= before).toBe(true);
    expect(Date.parse(answer.createdDate) - Date.parse(question.createdDate)).toBeGreaterThanOrEqual(900);
  });
});
