// POST /openai/responses and GET /openai/responses/{id} with the `openai` SDK (create, the
// ResponseStream helper) and the AI SDK's responses model: the event sequence, previous_response_id
// continuing the chat, store.
import { generateText, streamText } from "ai";
import { describe, expect, it } from "vitest";
import { requestsWith } from "../engine/helpers";
import { call, json } from "../helpers";
import { aiProvider, echoFlow, memoryFlow, messagesOf, openaiClient, sseOf } from "./helpers";

describe("POST /openai/responses (openai SDK)", () => {
  it("answers a completed response with one output message, usage and the chat in metadata; GET finds it", async () => {
    const id = await echoFlow();
    const client = openaiClient();
    const response = await client.responses.create({ model: id, input: "hello there", metadata: { mine: "kept" } });
    expect(response).toMatchObject({
      object: "response",
      status: "completed",
      model: id,
      error: null,
      previous_response_id: null,
      store: true,
      output: [
        {
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "echo: hello there", annotations: [] }],
        },
      ],
      usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
      metadata: { mine: "kept", chatId: expect.any(String), sessionId: expect.any(String), chatMessageId: expect.any(String) },
    });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output_text).toBe("echo: hello there");

    const again = await client.responses.retrieve(response.id);
    expect(again).toMatchObject({ id: response.id, status: "completed", output: response.output, metadata: response.metadata });
    const stored = await messagesOf(id);
    expect(stored.map((m) => [m.content, m.chatType, m.chatId])).toEqual([
      ["hello there", "OPENAI", response.metadata!.chatId],
      ["echo: hello there", "OPENAI", response.metadata!.chatId],
    ]);
  });

  it("previous_response_id continues the same chat: the flow's memory has the earlier turn", async () => {
    const id = await memoryFlow();
    const client = openaiClient();
    const first = await client.responses.create({ model: id, input: "my name is Ada", instructions: "be brief" });
    const marker = crypto.randomUUID().slice(0, 8);
    const second = await client.responses.create({
      model: id,
      input: [{ role: "user", content: `what is my name? ${marker}` }],
      previous_response_id: first.id,
    });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.metadata!.chatId).toBe(first.metadata!.chatId);
    const [sent] = await requestsWith(marker);
    expect(JSON.stringify(sent.body.messages)).toContain("my name is Ada");
    expect((await messagesOf(id)).map((m) => m.chatId)).toEqual(Array(4).fill(first.metadata!.chatId));
  });

  it("store: false keeps no response (GET and previous_response_id are 404) but the chat's messages are stored", async () => {
    const id = await echoFlow();
    const client = openaiClient();
    const response = await client.responses.create({ model: id, input: "not kept", store: false });
    expect((response as any).store).toBe(false);
    await expect(client.responses.retrieve(response.id)).rejects.toMatchObject({ status: 404 });
    const err = await client.responses.create({ model: id, input: "again", previous_response_id: response.id }).catch((e) => e);
    expect(err).toMatchObject({ status: 404, param: "previous_response_id" });
    expect(await messagesOf(id)).toHaveLength(2);
  });

  it("previous_response_id of another flow's response is a 400", async () => {
    const a = await echoFlow();
    const b = await echoFlow();
    const client = openaiClient();
    const first = await client.responses.create({ model: a, input: "one" });
    const err = await client.responses.create({ model: b, input: "two", previous_response_id: first.id }).catch((e) => e);
    expect(err).toMatchObject({ status: 400, param: "previous_response_id" });
  });

  it("streams the Responses API's events in order; the SDK's ResponseStream accumulates the final response", async () => {
    const id = await echoFlow();
    const client = openaiClient();
    const stream = await client.responses.create({ model: id, input: "one two three four", stream: true });
    const events: any[] = [];
    for await (const event of stream) events.push(event);
    const types = events.map((e) => e.type);
    const deltas = events.filter((e) => e.type === "response.output_text.delta");
    expect(deltas.length).toBeGreaterThanOrEqual(4);
    expect(types).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      ...deltas.map(() => "response.output_text.delta"),
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(deltas.map((d) => d.delta).join("")).toBe("echo: one two three four");
    const completed = events.at(-1).response;
    expect(completed).toMatchObject({ status: "completed", output: [{ content: [{ text: "echo: one two three four" }] }] });
    expect(completed.usage.output_tokens).toBeGreaterThan(3); // counted: the stand-in reports none on streams
    // Kept before the last event went out.
    expect((await client.responses.retrieve(completed.id)).output).toEqual(completed.output);

    const helper = client.responses.stream({ model: id, input: "five six" });
    const texts: string[] = [];
    helper.on("response.output_text.delta", (e) => texts.push(e.delta));
    const final = await helper.finalResponse();
    expect(texts.join("")).toBe("echo: five six");
    expect(final.output_text).toBe("echo: five six");
    expect(final.status).toBe("completed");
  });

  it("answers a raw event stream with event names and data lines", async () => {
    const id = await echoFlow();
    const res = await call("POST", "/openai/responses", { body: { model: id, input: "x y", stream: true } });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = await sseOf(res);
    for (const e of events) expect(JSON.parse(e.data).type).toBe(e.event);
    expect(events.at(-1)!.event).toBe("response.completed");
  });

  it("GET of an unknown id is OpenAI's 404; a key that may not run the flow cannot read its responses", async () => {
    const res = await call("GET", "/openai/responses/resp_unknown");
    expect(res.status).toBe(404);
    expect((await res.json<any>()).error).toMatchObject({ type: "invalid_request_error", code: "response_not_found" });

    const id = await echoFlow();
    const response = await openaiClient().responses.create({ model: id, input: "private" });
    const other = await json("POST", "/apikey", { body: { keyName: "limited", chatflows: [await echoFlow()] } });
    const refused = await call("GET", `/openai/responses/${response.id}`, { token: other.apiKey });
    expect(refused.status).toBe(403);
  });
});

describe("POST /openai/responses (AI SDK)", () => {
  it("generateText and streamText through @ai-sdk/openai's responses model", async () => {
    const id = await echoFlow();
    const model = aiProvider().responses(id);
    const whole = await generateText({ model, prompt: "alpha beta" });
    expect(whole.text).toBe("echo: alpha beta");
    expect(whole.usage).toMatchObject({ inputTokens: 1, outputTokens: 1 });

    const streamed = streamText({ model, prompt: "gamma delta epsilon" });
    const parts: string[] = [];
    for await (const part of streamed.textStream) parts.push(part);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expect(parts.join("")).toBe("echo: gamma delta epsilon");
    expect(await streamed.finishReason).toBe("stop");
  });
});
