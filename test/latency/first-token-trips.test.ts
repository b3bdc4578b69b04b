// Issue 32 item 2 on the simulated planet (src/lib/d1-simulation.ts): the OpenAI-compatible
// endpoint and the chat widget's public flow make exactly one replica round trip before their first
// token and none to the primary; the messages are one primary round trip after it (a JSON answer
// has them before its head: its head is its end).
import { describe, expect, it } from "vitest";
import conversationChain from "../engine/fixtures/conversation-chain.json";
import { marker, requestsWith } from "../engine/helpers";
import { afEdge, llm, openAICredential, saveAgentflowOf, start } from "../agentflow-api/flows";
import { json, uuid } from "../helpers";
import { standinFlow, workerWith } from "./helpers";

const planet = workerWith({ ENVIRONMENT: "development", D1_SIMULATED_RTT_MS: "60", D1_SIMULATED_REPLICA_RTT_MS: "20" });
const traceOf = async (res: { headers: Headers }) => (await planet("GET", `/__d1-trace/${res.headers.get("x-request-id")}`)).body;
const ONE_REPLICA = { primary: 0, replica: 1 };

/** A new API key's bearer header: the first request with it finds the key in the run's batch. */
async function keyHeader(): Promise<Record<string, string>> {
  const key = await json("POST", "/apikey", { body: { keyName: `trips ${uuid()}` } });
  return { authorization: `Bearer ${key.apiKey}` };
}

const completion = (headers: Record<string, string>, body: Record<string, unknown>) =>
  planet("POST", "/openai/chat/completions", { headers, body });

/** The streamed completion's text, from its chunks. */
const streamedText = (text: string) =>
  text
    .split("\n\n")
    .filter((f) => f.startsWith("data: {"))
    .map((f) => JSON.parse(f.slice(6)).choices?.[0]?.delta?.content ?? "")
    .join("");

describe("the OpenAI-compatible endpoint", () => {
  it("a stream: one replica round trip before its head and first token, the messages in one primary one after", async () => {
    const flowId = await standinFlow();
    const res = await completion(await keyHeader(), {
      model: flowId,
      stream: true,
      messages: [{ role: "user", content: "[bench:3:0] hi" }],
    });
    expect(res.status).toBe(200);
    expect(streamedText(res.text)).toBe("tok1 tok2 tok3 ");
    expect(res.text.trim().endsWith("data: [DONE]")).toBe(true);
    expect(await traceOf(res)).toEqual({
      done: { primary: 1, replica: 1 },
      head: ONE_REPLICA,
      run: ONE_REPLICA,
      firstToken: ONE_REPLICA,
      end: { primary: 1, replica: 1 },
    });
  });

  it("a JSON completion: flow, key and credentials in one replica round trip, the messages in one primary one", async () => {
    const flowId = await standinFlow();
    const res = await completion(await keyHeader(), { model: flowId, messages: [{ role: "user", content: "[bench:3:0] hi" }] });
    expect(res.status).toBe(200);
    expect(res.body.choices[0].message.content).toBe("tok1 tok2 tok3 ");
    const both = { primary: 1, replica: 1 };
    // before the run: the batch only; the messages' write after it, before the answer's head
    expect(await traceOf(res)).toEqual({ done: both, run: ONE_REPLICA, head: both, end: both });
  });

  it("a session named by `user` (buffer memory): its memory in the batch; the second turn's model call has the first", async () => {
    const flowId = await standinFlow(conversationChain);
    const headers = await keyHeader();
    const session = uuid();
    const tag = marker();
    for (let turn = 0; turn < 2; turn++) {
      const content = `${tag} turn ${turn}`;
      const res = await completion(headers, { model: flowId, user: session, stream: true, messages: [{ role: "user", content }] });
      expect(res.status).toBe(200);
      expect(res.text).toContain("data: [DONE]");
      const trace = await traceOf(res);
      expect(trace.run).toEqual(ONE_REPLICA);
      expect(trace.firstToken).toEqual(ONE_REPLICA);
      expect(trace.end).toEqual({ primary: 1, replica: 1 });
    }
    const sent = (await requestsWith(`${tag} turn 1`)).at(-1)!.body.messages.map((m) => m.content);
    expect(sent.join("\n")).toContain(`${tag} turn 0`);
  });

  it("a response in a session named by `user`: its memory in the batch too (the run starts after one replica round trip)", async () => {
    const flowId = await standinFlow(conversationChain);
    const headers = await keyHeader();
    const session = uuid();
    const tag = marker();
    for (let turn = 0; turn < 2; turn++) {
      const res = await planet("POST", "/openai/responses", { headers, body: { model: flowId, user: session, input: `${tag} r${turn}` } });
      expect(res.status).toBe(200);
      const trace = await traceOf(res);
      expect(trace.run).toEqual(ONE_REPLICA);
      expect(trace.end.replica).toBe(1);
    }
    const sent = (await requestsWith(`${tag} r1`)).at(-1)!.body.messages.map((m) => m.content);
    expect(sent.join("\n")).toContain(`${tag} r0`);
  });

  it("a response continuing previous_response_id: the stored response and its session's memory in the one batch", async () => {
    const flowId = await standinFlow(conversationChain);
    const headers = await keyHeader();
    const tag = marker();
    const first = await planet("POST", "/openai/responses", { headers, body: { model: flowId, input: `${tag} r0` } });
    expect(first.status).toBe(200);
    // a session the request does not name is new (no memory read); the stored response written in
    // the messages' batch: one round trip of each in all
    expect((await traceOf(first)).done).toEqual({ primary: 1, replica: 1 });
    const res = await planet("POST", "/openai/responses", {
      headers,
      body: { model: flowId, input: `${tag} r1`, previous_response_id: first.body.id },
    });
    expect(res.status).toBe(200);
    expect(res.body.previous_response_id).toBe(first.body.id);
    expect((await traceOf(res)).run).toEqual(ONE_REPLICA);
    const sent = (await requestsWith(`${tag} r1`)).at(-1)!.body.messages.map((m) => m.content);
    expect(sent.join("\n")).toContain(`${tag} r0`);
    // one that is not stored: its 404, after the same one round trip
    const missing = await planet("POST", "/openai/responses", {
      headers,
      body: { model: flowId, input: "hi", previous_response_id: "resp_0123456789abcdef" },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: "response_not_found", param: "previous_response_id" });
    expect(await traceOf(missing)).toMatchObject({ done: ONE_REPLICA });
  });

  it("a streamed response: one replica round trip before its first text delta; its messages and the stored response in one primary one after", async () => {
    const flowId = await standinFlow();
    const res = await planet("POST", "/openai/responses", {
      headers: await keyHeader(),
      body: { model: flowId, input: "[bench:3:0] hi", stream: true },
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain("event: response.output_text.delta");
    // the stored response (store defaults to true) goes in the messages' batch
    expect(await traceOf(res)).toMatchObject({ run: ONE_REPLICA, firstToken: ONE_REPLICA, end: { primary: 1, replica: 1 } });
    const id = /"response":\{"id":"(resp_\w+)"/.exec(res.text)?.[1];
    const stored = await planet("GET", `/openai/responses/${id}`, { headers: await keyHeader() });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ id, status: "completed", output: [{ content: [{ text: "tok1 tok2 tok3 " }] }] });
  });

  it("an agentflow in a session named by metadata.chatId: memory and last execution in the one batch", async () => {
    const cred = await openAICredential();
    const { id } = await saveAgentflowOf([start(), llm("llmAgentflow_0", cred)], [afEdge("startAgentflow_0", "llmAgentflow_0")]);
    const headers = await keyHeader();
    const chatId = uuid();
    const tag = marker();
    for (let turn = 0; turn < 2; turn++) {
      const content = `${tag} af turn ${turn}`;
      const res = await completion(headers, { model: id, stream: true, metadata: { chatId }, messages: [{ role: "user", content }] });
      expect(res.status).toBe(200);
      expect(res.text).toContain("data: [DONE]");
      const trace = await traceOf(res);
      expect(trace.head).toEqual(ONE_REPLICA);
      expect(trace.run).toEqual(ONE_REPLICA);
      expect(trace.firstToken).toEqual(ONE_REPLICA);
      expect(trace.end.replica).toBe(1);
      expect(trace.end.primary).toBeGreaterThanOrEqual(1); // the execution's rows and the messages
    }
    const sent = (await requestsWith(`${tag} af turn 1`)).at(-1)!.body.messages.map((m) => m.content);
    expect(sent.join("\n")).toContain(`${tag} af turn 0`);
  });

  it("a model named by its name slug: the flow found in the same one replica round trip", async () => {
    const flowId = await standinFlow();
    const tag = uuid().slice(0, 8);
    await json("PUT", `/chatflows/${flowId}`, { body: { name: `Trips: Slug ${tag}!` } });
    const res = await completion(await keyHeader(), {
      model: `trips-slug-${tag}`,
      stream: true,
      messages: [{ role: "user", content: "[bench:3:0] hi" }],
    });
    expect(res.status).toBe(200);
    expect(streamedText(res.text)).toBe("tok1 tok2 tok3 ");
    const trace = await traceOf(res);
    expect(trace.run).toEqual(ONE_REPLICA);
    expect(trace.firstToken).toEqual(ONE_REPLICA);
    expect(trace.end).toEqual({ primary: 1, replica: 1 });
  });

  it("a slug whose words other flows' names hold too: still its own flow (the batch finds several, the listing decides)", async () => {
    const tag = uuid().slice(0, 8);
    const [wanted, longer, reordered] = [await standinFlow(), await standinFlow(), await standinFlow()];
    await json("PUT", `/chatflows/${wanted}`, { body: { name: `Like ${tag}` } });
    await json("PUT", `/chatflows/${longer}`, { body: { name: `Like ${tag} and more` } });
    await json("PUT", `/chatflows/${reordered}`, { body: { name: `Unlike ${tag}` } });
    const chatId = uuid();
    const res = await completion(await keyHeader(), {
      model: `like-${tag}`,
      metadata: { chatId },
      messages: [{ role: "user", content: "[bench:2:0] which" }],
    });
    expect(res.status).toBe(200);
    expect(res.body.choices[0].message.content).toBe("tok1 tok2 ");
    expect(await json("GET", `/chatmessage/${wanted}?chatId=${chatId}`)).toHaveLength(2);
    for (const other of [longer, reordered]) expect(await json("GET", `/chatmessage/${other}?chatId=${chatId}`)).toHaveLength(0);
  });
});

describe("a prediction that names no session", () => {
  it("a memory flow's new session is not read: one replica round trip in all, none between the batch and the model", async () => {
    const flowId = await standinFlow(conversationChain);
    const tag = marker();
    const res = await planet("POST", `/prediction/${flowId}`, { headers: await keyHeader(), body: { question: `${tag} fresh` } });
    expect(res.status).toBe(200);
    expect(await traceOf(res)).toMatchObject({ done: { primary: 1, replica: 1 }, run: ONE_REPLICA });
    // the answer's session is new and its messages stored; the model was asked the question alone
    const stored = await json("GET", `/chatmessage/${flowId}?chatId=${res.body.chatId}`);
    expect(stored.map((m: { role: string }) => m.role)).toEqual(["userMessage", "apiMessage"]);
    const sent = (await requestsWith(`${tag} fresh`)).at(-1)!.body.messages.filter((m) => m.role !== "system");
    expect(sent).toHaveLength(1);
  });
});

describe("the widget's public flow, without credentials", () => {
  const anonymous = { authorization: "" };

  it("config and streams?: one replica round trip each; each message: one replica round trip before its first token", async () => {
    const flowId = await standinFlow();
    await json("PUT", `/chatflows/${flowId}`, { body: { isPublic: true } });
    const config = await planet("GET", `/public-chatbotConfig/${flowId}`, { headers: anonymous });
    expect(config.status).toBe(200);
    expect(await traceOf(config)).toMatchObject({ head: ONE_REPLICA, end: ONE_REPLICA });
    const streams = await planet("GET", `/chatflows-streaming/${flowId}`, { headers: anonymous });
    expect(streams.body).toEqual({ isStreaming: true });
    expect(await traceOf(streams)).toMatchObject({ head: ONE_REPLICA, end: ONE_REPLICA });

    const chatId = uuid(); // the widget's own
    for (const [turn, head] of [
      [0, ONE_REPLICA],
      [1, { primary: 0, replica: 0 }],
    ] as const) {
      const res = await planet("POST", `/prediction/${flowId}`, {
        headers: anonymous,
        body: { question: `[bench:3:0] turn ${turn}`, chatId, streaming: true },
      });
      expect(res.status).toBe(200);
      expect(res.text).toContain('"event":"token"');
      // the second message's head leaves before the batch (early-stream.ts); its first token still waits for it
      expect(await traceOf(res)).toEqual({
        done: { primary: 1, replica: 1 },
        head,
        run: ONE_REPLICA,
        firstToken: ONE_REPLICA,
        end: { primary: 1, replica: 1 },
      });
    }
    const stored = await json("GET", `/chatmessage/${flowId}?chatId=${chatId}`);
    expect(stored.map((m: { role: string }) => m.role)).toEqual(["userMessage", "apiMessage", "userMessage", "apiMessage"]);
  });

  it("config of a flow whose speech names credentials: still one replica round trip, each credential checked in it", async () => {
    const flowId = await standinFlow();
    const stored = await json("POST", "/credentials", {
      body: { name: `speech ${uuid()}`, credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-x" } },
    });
    const settings = (speechToText: unknown, textToSpeech: unknown) =>
      json("PUT", `/chatflows/${flowId}`, {
        body: { isPublic: true, speechToText: JSON.stringify(speechToText), textToSpeech: JSON.stringify(textToSpeech) },
      });
    const config = async () => {
      const res = await planet("GET", `/public-chatbotConfig/${flowId}`, { headers: anonymous });
      expect(res.status).toBe(200);
      expect(await traceOf(res)).toMatchObject({ done: ONE_REPLICA });
      return [res.body.uploads.isSpeechToTextEnabled, res.body.isTTSEnabled];
    };
    // the hearing one by `credential` (an older key), the speaking one stored under `credentialId`
    await settings({ openAIWhisper: { status: true, credential: stored.id } }, { openai: { status: true, credentialId: stored.id } });
    expect(await config()).toEqual([true, true]);
    // a credential that is not stored, beside an inactive provider's that is
    await settings(
      { openAIWhisper: { status: true, credentialId: uuid() }, groq: { status: false, credentialId: stored.id } },
      { openai: { status: true, credentialId: stored.id } },
    );
    expect(await config()).toEqual([false, true]);
    // settings that are JSON but not objects name nothing and switch nothing on
    await settings("openai", [{ openai: { status: true, credentialId: stored.id } }]);
    expect(await config()).toEqual([false, false]);
    await json("DELETE", `/credentials/${stored.id}`);
  });

  it("the same flow made private: the anonymous caller gets no token, and the model is never asked", async () => {
    const flowId = await standinFlow();
    await json("PUT", `/chatflows/${flowId}`, { body: { isPublic: false } });
    const m = marker();
    const res = await planet("POST", `/prediction/${flowId}`, { headers: anonymous, body: { question: `${m} private`, streaming: true } });
    expect(res.text).not.toContain('"event":"token"');
    expect(res.status).toBe(401);
    expect(await requestsWith(m)).toHaveLength(0);
  });
});
