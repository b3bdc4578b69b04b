// POST /openai/chat/completions with the official `openai` SDK and the AI SDK: a flow answers as a
// model, whole and streamed, with usage; its messages are stored with chatType OPENAI.
import { generateText, streamText } from "ai";
import { describe, expect, it } from "vitest";
import listParser from "../engine/fixtures/list-output-parser.json";
import { type Fixture, flowDataOf, pointAtStandin, requestsWith } from "../engine/helpers";
import { call, json } from "../helpers";
import { openAICredential } from "../security/helpers";
import { aiProvider, echoFlow, memoryFlow, messagesOf, openaiClient, sseOf } from "./helpers";

describe("chat completions (openai SDK)", () => {
  it("answers a chat.completion: the last user message is the question, usage as the model reported it, metadata names the chat", async () => {
    const id = await echoFlow();
    const marker = crypto.randomUUID().slice(0, 8);
    const completion = await openaiClient().chat.completions.create({
      model: id,
      messages: [{ role: "user", content: `hello ${marker}` }],
    });
    expect(completion).toMatchObject({
      object: "chat.completion",
      model: id,
      choices: [{ index: 0, message: { role: "assistant", content: `echo: hello ${marker}` }, finish_reason: "stop" }],
      // The stand-in reports {prompt 1, completion 1, total 2} on every JSON answer.
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
    expect(completion.id).toMatch(/^chatcmpl-/);
    const metadata = (completion as any).metadata;
    expect(metadata).toMatchObject({ chatId: expect.any(String), sessionId: metadata.chatId, chatMessageId: expect.any(String) });

    const stored = await messagesOf(id);
    expect(stored.map((m) => [m.role, m.content, m.chatType, m.chatId])).toEqual([
      ["userMessage", `hello ${marker}`, "OPENAI", metadata.chatId],
      ["apiMessage", `echo: hello ${marker}`, "OPENAI", metadata.chatId],
    ]);
    expect(stored[1].id).toBe(metadata.chatMessageId);
    // The model was asked once, with the question the flow made of the last message.
    const [sent] = await requestsWith(marker);
    expect(sent.body.messages.at(-1)).toMatchObject({ role: "user", content: `hello ${marker}` });
  });

  it("streams chat.completion.chunk frames as the model makes them: a role chunk, several deltas, stop, then the usage chunk", async () => {
    const id = await echoFlow();
    const marker = crypto.randomUUID().slice(0, 8);
    const stream = await openaiClient().chat.completions.create({
      model: id,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: `one two three four ${marker}` }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "" });
    const deltas = chunks.flatMap((c) => c.choices.map((ch) => ch.delta.content ?? "")).filter(Boolean);
    expect(deltas.length).toBeGreaterThanOrEqual(5); // the stand-in sends one token per word
    expect(deltas.join("")).toBe(`echo: one two three four ${marker}`);
    const stop = chunks.find((c) => c.choices[0]?.finish_reason === "stop")!;
    expect((stop as any).metadata).toMatchObject({ chatId: expect.any(String) });
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    // Streams report no usage from the stand-in: counted with cl100k_base.
    expect(last.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
    expect(last.usage!.completion_tokens).toBeGreaterThan(3);
    expect(last.usage!.total_tokens).toBe(last.usage!.prompt_tokens + last.usage!.completion_tokens);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);

    const stored = await messagesOf(id);
    expect(stored.map((m) => [m.role, m.chatType])).toEqual([
      ["userMessage", "OPENAI"],
      ["apiMessage", "OPENAI"],
    ]);
    expect(stored[1].content).toBe(`echo: one two three four ${marker}`);
  });

  it("ends the raw stream with data: [DONE]", async () => {
    const id = await echoFlow();
    const res = await call("POST", "/openai/chat/completions", {
      body: { model: id, stream: true, messages: [{ role: "user", content: "a b" }] },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = await sseOf(res);
    expect(events.at(-1)!.data).toBe("[DONE]");
    expect(JSON.parse(events.at(-2)!.data).choices[0].finish_reason).toBe("stop");
  });

  it("passes earlier turns as history and the system message to a flow whose apiConfig lets it be overridden", async () => {
    const apiConfig = JSON.stringify({
      overrideConfig: {
        status: true,
        nodes: {
          "Conversation Chain": [{ name: "systemMessagePrompt", enabled: true }],
          ChatOpenAI: [
            { name: "temperature", enabled: true },
            { name: "maxTokens", enabled: true },
          ],
        },
      },
    });
    const id = await memoryFlow({ apiConfig });
    const marker = crypto.randomUUID().slice(0, 8);
    await openaiClient().chat.completions.create({
      model: id,
      temperature: 0.25,
      max_tokens: 50,
      messages: [
        { role: "system", content: `You are a pirate ${marker}` },
        { role: "user", content: "my name is Ada" },
        { role: "assistant", content: "Hello Ada" },
        { role: "user", content: `what is my name? ${marker}` },
      ],
    });
    const [sent] = await requestsWith(`what is my name? ${marker}`);
    expect(sent.body.temperature).toBe(0.25);
    expect(sent.body.max_tokens).toBe(50);
    const roles = sent.body.messages.map((m) => [m.role, m.content]);
    expect(roles[0]).toEqual(["system", `You are a pirate ${marker}`]);
    expect(roles).toContainEqual(["user", "my name is Ada"]);
    expect(roles).toContainEqual(["assistant", "Hello Ada"]);
    expect(roles.at(-1)).toEqual(["user", `what is my name? ${marker}`]);
  });

  it("ignores the system message and sampling fields where the flow does not allow overriding them", async () => {
    const id = await memoryFlow();
    const marker = crypto.randomUUID().slice(0, 8);
    await openaiClient().chat.completions.create({
      model: id,
      temperature: 0.25,
      max_tokens: 50,
      messages: [
        { role: "system", content: "You are a pirate" },
        { role: "user", content: marker },
      ],
    });
    const [sent] = await requestsWith(marker);
    expect(sent.body.temperature).toBe(0.9); // the flow's own
    expect(sent.body.max_tokens).toBeUndefined();
    expect(JSON.stringify(sent.body.messages)).not.toContain("pirate");
  });

  it("user is the sessionId and metadata.chatId the chat: a second turn continues the flow's memory", async () => {
    const id = await memoryFlow();
    const chatId = `chat-${crypto.randomUUID().slice(0, 8)}`;
    const first = await openaiClient().chat.completions.create({
      model: id,
      user: "ada",
      metadata: { chatId },
      messages: [{ role: "user", content: "my name is Ada" }],
    });
    expect((first as any).metadata).toMatchObject({ chatId, sessionId: "ada" });
    const marker = crypto.randomUUID().slice(0, 8);
    await openaiClient().chat.completions.create({
      model: id,
      user: "ada",
      metadata: { chatId },
      messages: [{ role: "user", content: `name? ${marker}` }],
    });
    const [sent] = await requestsWith(marker);
    expect(JSON.stringify(sent.body.messages)).toContain("my name is Ada");
    const stored = await messagesOf(id);
    expect(stored.map((m) => [m.chatId, m.sessionId])).toEqual(Array(4).fill([chatId, "ada"]));
  });

  it("accepts the flow's name slug as the model", async () => {
    const name = `Support Bot ${crypto.randomUUID().slice(0, 6)}!`;
    const id = await echoFlow({ name });
    const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "-");
    const completion = await openaiClient().chat.completions.create({ model: slug, messages: [{ role: "user", content: "hi" }] });
    expect(completion.choices[0].message.content).toBe("echo: hi");
    expect(completion.model).toBe(slug);
    const trimmed = await openaiClient().chat.completions.create({
      model: slug.replace(/-$/, ""),
      messages: [{ role: "user", content: "hi" }],
    });
    expect(trimmed.choices[0].message.content).toBe("echo: hi");
    expect((await messagesOf(id)).length).toBe(4);
  });

  it("response_format json_object on a flow with an output parser answers its structured output as JSON text", async () => {
    const credential = await openAICredential("sk-openai-test");
    const flowData = flowDataOf(listParser as unknown as Fixture, (nodes) => {
      for (const node of nodes.values()) if (node.data.category === "Chat Models") pointAtStandin(node, credential);
    });
    const id = (await json("POST", "/chatflows", { body: { name: "list", flowData } })).id;
    const completion = await openaiClient().chat.completions.create({
      model: id,
      response_format: { type: "json_object" },
      messages: [{ role: "user", content: "[csv] three letters" }],
    });
    expect(JSON.parse(completion.choices[0].message.content!)).toEqual(["a", "b", "c"]);
    const streamed = await openaiClient().chat.completions.create({
      model: id,
      stream: true,
      response_format: { type: "json_object" },
      messages: [{ role: "user", content: "[csv] again" }],
    });
    let text = "";
    for await (const chunk of streamed) text += chunk.choices[0]?.delta?.content ?? "";
    expect(JSON.parse(text)).toEqual(["a", "b", "c"]);
  });

  it("a client hanging up mid-stream stops the model call; nothing is stored", async () => {
    const id = await echoFlow();
    const marker = crypto.randomUUID().slice(0, 8);
    // "[slow]": every token after the first comes 300 ms later.
    const res = await call("POST", "/openai/chat/completions", {
      body: { model: id, stream: true, messages: [{ role: "user", content: `[slow] ${marker} a b c d e f` }] },
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    while (!seen.includes('"content":"echo: "')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`ended before a token: ${seen}`);
      seen += decoder.decode(value, { stream: true });
    }
    await reader.cancel();
    const deadline = Date.now() + 3000;
    let record: any;
    while (Date.now() < deadline) {
      [record] = await requestsWith(marker);
      if (record?.stream?.closedEarly) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(record.stream).toMatchObject({ closedEarly: true, finished: false });
    await new Promise((r) => setTimeout(r, 100));
    expect(await messagesOf(id)).toEqual([]);
  });
});

describe("chat completions (AI SDK)", () => {
  it("generateText and streamText through @ai-sdk/openai's chat model", async () => {
    const id = await echoFlow();
    const model = aiProvider().chat(id);
    const whole = await generateText({ model, prompt: "alpha beta" });
    expect(whole.text).toBe("echo: alpha beta");
    expect(whole.usage).toMatchObject({ inputTokens: 1, outputTokens: 1, totalTokens: 2 });

    const streamed = streamText({ model, prompt: "gamma delta epsilon" });
    const parts: string[] = [];
    for await (const part of streamed.textStream) parts.push(part);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expect(parts.join("")).toBe("echo: gamma delta epsilon");
    expect(await streamed.finishReason).toBe("stop");
    expect((await streamed.usage).outputTokens).toBeGreaterThan(0);
  });
});

describe("GET /openai/models", () => {
  it("is an OpenAI model list; an admin sees every flow", async () => {
    const id = await echoFlow();
    const list = await openaiClient().models.list();
    const found = list.data.find((m) => m.id === id);
    expect(found).toMatchObject({ id, object: "model", owned_by: "edgeflow", created: expect.any(Number) });
    const raw = await json("GET", "/openai/models");
    expect(raw.object).toBe("list");
  });
});
