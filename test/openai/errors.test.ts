// Every error class of the OpenAI-compatible API, as OpenAI's clients see it: OpenAI's body
// {error: {message, type, param, code}}, the status the SDK turns into its error class, secrets
// never in it; a failure mid-stream ends the stream so both SDKs raise it (no hang).
import { streamText } from "ai";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { call, json } from "../helpers";
import { keyWith } from "../security/keys";
import { aiProvider, echoFlow, openaiClient } from "./helpers";

const messages = [{ role: "user" as const, content: "hi" }];

/** The raw answer: status and OpenAI's error object (and nothing else in the body). */
async function openAIError(res: Response, status: number) {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/json");
  const body = JSON.parse(text);
  expect(Object.keys(body)).toEqual(["error"]);
  expect(body.error).toEqual({
    message: expect.any(String),
    type: expect.any(String),
    param: expect.toSatisfy((p) => p === null || typeof p === "string"),
    code: expect.toSatisfy((p) => p === null || typeof p === "string"),
  });
  return body.error as { message: string; type: string; param: string | null; code: string | null };
}

const post = (path: string, body: unknown, token?: string | null) => call("POST", `/openai${path}`, { body, token });

describe("401 and 403", () => {
  it("a bad key is the SDK's AuthenticationError; no key is a 401 too", async () => {
    const id = await echoFlow();
    const err = await openaiClient("not-a-key")
      .chat.completions.create({ model: id, messages })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err.error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });
    await openAIError(await post("/chat/completions", { model: id, messages }, null), 401);
    await openAIError(await call("GET", "/openai/models", { token: null }), 401);
    await openAIError(await post("/responses", { model: id, input: "hi" }, "nope"), 401);
  });

  it("a flow bound to a key takes only that key: another key is 401, the admin key and its own key run it", async () => {
    const owner = await keyWith();
    const id = await echoFlow({ apikeyid: owner.id });
    const other = await keyWith();
    const err = await openaiClient(other.apiKey)
      .chat.completions.create({ model: id, messages })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((await openaiClient(owner.apiKey).chat.completions.create({ model: id, messages })).choices[0].message.content).toBe("echo: hi");
    expect((await openaiClient().chat.completions.create({ model: id, messages })).choices[0].message.content).toBe("echo: hi");
  });

  it("a key limited to other chatflows is the SDK's PermissionDeniedError; an origin the flow does not allow is a 403", async () => {
    const id = await echoFlow();
    const limited = await keyWith(undefined, [await echoFlow()]);
    const err = await openaiClient(limited.apiKey)
      .chat.completions.create({ model: id, messages })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(err.error.type).toBe("permission_error");

    const guarded = await echoFlow({
      chatbotConfig: JSON.stringify({ allowedOrigins: ["https://allowed.example"], allowedOriginsError: "Not from here" }),
    });
    const refused = await openAIError(
      await call("POST", "/openai/chat/completions", { body: { model: guarded, messages }, headers: { origin: "https://evil.example" } }),
      403,
    );
    expect(refused.message).toBe("Not from here");
  });
});

describe("GET /openai/models respects the key's reach", () => {
  it("a key limited to chatflows lists only those; flows bound to another key are left out", async () => {
    const mine = await echoFlow();
    const theirs = await echoFlow();
    const limited = await keyWith(["chatflows:view"], [mine]);
    const listed = (await openaiClient(limited.apiKey).models.list()).data.map((m) => m.id);
    expect(listed).toEqual([mine]);

    const owner = await keyWith();
    const bound = await echoFlow({ apikeyid: owner.id });
    const anyKey = await keyWith();
    const seen = (await openaiClient(anyKey.apiKey).models.list()).data.map((m) => m.id);
    expect(seen).toContain(theirs);
    expect(seen).not.toContain(bound);
    expect((await openaiClient(owner.apiKey).models.list()).data.map((m) => m.id)).toContain(bound);
    expect((await openaiClient().models.list()).data.map((m) => m.id)).toContain(bound);
  });

  it("a slug names only flows the caller may run", async () => {
    const name = `Scoped ${crypto.randomUUID().slice(0, 6)}`;
    await echoFlow({ name });
    const limited = await keyWith(undefined, [await echoFlow()]);
    const err = await openaiClient(limited.apiKey)
      .chat.completions.create({ model: name.toLowerCase().replace(/ /g, "-"), messages })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe("404 unknown model", () => {
  it("an id or a name that names no flow is the SDK's NotFoundError, param model, code model_not_found", async () => {
    for (const model of [crypto.randomUUID(), "no-such-flow"]) {
      const err = await openaiClient()
        .chat.completions.create({ model, messages })
        .catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
      expect(err.error).toMatchObject({ type: "invalid_request_error", param: "model", code: "model_not_found" });
      expect(err.error.message).toContain(model);
    }
    const raw = await openAIError(await post("/responses", { model: "no-such-flow", input: "hi" }), 404);
    expect(raw.code).toBe("model_not_found");
  });

  it("two flows with the same slug: a 400 that lists their ids", async () => {
    const name = `Twin ${crypto.randomUUID().slice(0, 6)}`;
    const [a, b] = [await echoFlow({ name }), await echoFlow({ name })];
    const err = await openaiClient()
      .chat.completions.create({ model: name.toLowerCase().replace(/ /g, "-"), messages })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.message).toContain(a);
    expect(err.message).toContain(b);
  });
});

describe("400: fields a flow cannot honour are refused by name, never dropped", () => {
  it.each([
    ["tools", { tools: [{ type: "function", function: { name: "f", parameters: {} } }] }],
    ["tool_choice", { tool_choice: "required" }],
    ["n", { n: 2 }],
    ["logprobs", { logprobs: true }],
    ["response_format", { response_format: { type: "json_object" } }],
    ["modalities", { modalities: ["text", "audio"] }],
  ])("chat completions: %s", async (param, extra) => {
    const id = await echoFlow();
    const err = await openaiClient()
      .chat.completions.create({ model: id, messages, ...(extra as object) } as never)
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.error).toMatchObject({ type: "invalid_request_error", param, code: "unsupported_parameter" });
    expect(err.message).toContain(param);
  });

  it("n: 1, tool_choice none and response_format text are fine", async () => {
    const id = await echoFlow();
    const ok = await openaiClient().chat.completions.create({
      model: id,
      messages,
      n: 1,
      tool_choice: "none",
      response_format: { type: "text" },
    });
    expect(ok.choices[0].message.content).toBe("echo: hi");
  });

  it("message shapes: tool results, images, a last message that is not the user's", async () => {
    const id = await echoFlow();
    const tool = await openAIError(
      await post("/chat/completions", { model: id, messages: [...messages, { role: "tool", tool_call_id: "x", content: "42" }] }),
      400,
    );
    expect(tool.param).toBe("messages[1].role");
    const image = await openAIError(
      await post("/chat/completions", {
        model: id,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "look" },
              { type: "image_url", image_url: { url: "https://example.com/a.png" } },
            ],
          },
        ],
      }),
      400,
    );
    expect(image).toMatchObject({ param: "messages[0].content[1]", code: "unsupported_parameter" });
    const last = await openAIError(
      await post("/chat/completions", { model: id, messages: [...messages, { role: "assistant", content: "hello" }] }),
      400,
    );
    expect(last.param).toBe("messages");
  });

  it("validation failures name the field; a body that is not JSON is a 400 in OpenAI's shape", async () => {
    const id = await echoFlow();
    const missing = await openAIError(await post("/chat/completions", { model: id }), 400);
    expect(missing).toMatchObject({ param: "messages", code: "missing_required_parameter", type: "invalid_request_error" });
    const bad = await openAIError(await post("/chat/completions", { model: id, messages, temperature: 5 }), 400);
    expect(bad.param).toBe("temperature");
    const role = await openAIError(await post("/chat/completions", { model: id, messages: [{ role: "wizard", content: "x" }] }), 400);
    expect(role.param).toBe("messages[0].role");
    await openAIError(
      await call("POST", "/openai/chat/completions", { raw: "{not json", headers: { "content-type": "application/json" } }),
      400,
    );
    await openAIError(await call("POST", "/openai/responses"), 400);
    await openAIError(await call("POST", "/openai/responses", { raw: "hi", headers: { "content-type": "text/plain" } }), 415);
  });

  it("responses: tools, background, conversation, text.format without a parser, other input items", async () => {
    const id = await echoFlow();
    for (const [param, extra] of [
      ["tools", { tools: [{ type: "function", name: "f", parameters: {} }] }],
      ["background", { background: true }],
      ["conversation", { conversation: "conv_1" }],
      ["text.format", { text: { format: { type: "json_object" } } }],
    ] as const) {
      const err = await openAIError(await post("/responses", { model: id, input: "hi", ...extra }), 400);
      expect(err, param).toMatchObject({ param, code: "unsupported_parameter" });
    }
    const item = await openAIError(
      await post("/responses", { model: id, input: [{ type: "function_call_output", call_id: "c", output: "42" }] }),
      400,
    );
    expect(item.param).toBe("input[0].type");
  });

  it("a chatflow cannot be resumed: metadata.executionId on one is a 400", async () => {
    const id = await echoFlow();
    const err = await openAIError(
      await post("/chat/completions", { model: id, messages, metadata: { executionId: crypto.randomUUID() } }),
      400,
    );
    expect(err.param).toBe("metadata.executionId");
  });
});

describe("429: the flow's rate limit", () => {
  it("past apiConfig.rateLimit the SDK raises RateLimitError with the flow's limitMsg", async () => {
    const id = await echoFlow({
      apiConfig: JSON.stringify({ rateLimit: { status: true, limitMax: 1, limitDuration: 60, limitMsg: "Slow down, pirate" } }),
    });
    await openaiClient().chat.completions.create({ model: id, messages });
    const err = await openaiClient()
      .chat.completions.create({ model: id, messages })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.error).toMatchObject({ message: "Slow down, pirate", type: "rate_limit_error", code: "rate_limit_exceeded" });
  });
});

describe("502 / 504: the flow's model failed", () => {
  it("a model that fails is a 502 (JSON, and a stream that fails before its first token), naming the provider", async () => {
    const id = await echoFlow();
    const err = await openaiClient()
      .chat.completions.create({ model: id, messages: [{ role: "user", content: "[fail] now" }] })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(err.status).toBe(502);
    expect(err.error).toMatchObject({ type: "server_error", code: "upstream_error" });
    const streamErr = await openaiClient()
      .chat.completions.create({ model: id, stream: true, messages: [{ role: "user", content: "[fail] streamed" }] })
      .catch((e) => e);
    expect(streamErr.status).toBe(502);
    const responseErr = await openaiClient()
      .responses.create({ model: id, input: "[fail] response", stream: true })
      .catch((e) => e);
    expect(responseErr.status).toBe(502);
  });

  it("the provider's own 401 is a 502, and the credential it echoed is not in the message", async () => {
    const key = "k3y9f1b2c4d6a8e0plainshape"; // no pattern recognises it: only knowing the value hides it
    const credential = (
      await json("POST", "/credentials", { body: { name: "k", credentialName: "openAIApi", plainDataObj: { openAIApiKey: key } } })
    ).id;
    const id = await echoFlow({}, { credential, model: "chatOpenAI" });
    const err = await openAIError(
      await post("/chat/completions", { model: id, messages: [{ role: "user", content: "[echo-auth] please" }] }),
      502,
    );
    expect(err.message).toMatch(/answered 401: Invalid credentials: the request carried/);
    expect(err.message).not.toContain(key);
    expect(err.message).not.toContain(key.slice(0, 12));
  });

  it("a model that does not answer within its timeout is a 504, in time", async () => {
    const id = await echoFlow();
    // The fixture's chat model node takes a timeout (ms).
    const flow = await json("GET", `/chatflows/${id}`);
    const data = JSON.parse(flow.flowData);
    for (const node of data.nodes) if (node.data.category === "Chat Models") node.data.inputs.timeout = 300;
    await json("PUT", `/chatflows/${id}`, { body: { flowData: JSON.stringify(data) } });
    const started = Date.now();
    const err = await openaiClient()
      .chat.completions.create({ model: id, messages: [{ role: "user", content: "[hang] wait" }] })
      .catch((e) => e);
    expect(err.status).toBe(504);
    expect(err.error).toMatchObject({ type: "server_error", code: "upstream_timeout" });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe("a failure mid-stream", () => {
  it("chat completions: the tokens so far, then an error frame and no [DONE]; the openai SDK throws an APIError", async () => {
    const id = await echoFlow();
    const stream = await openaiClient().chat.completions.create({
      model: id,
      stream: true,
      messages: [{ role: "user", content: "[cutoff] one two three four five six" }],
    });
    const got: string[] = [];
    const err = await (async () => {
      for await (const chunk of stream) got.push(chunk.choices[0]?.delta?.content ?? "");
    })().catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.message).toMatch(/ended before the answer was complete/);
    expect(got.join("")).toContain("echo:");

    const raw = await (
      await post("/chat/completions", { model: id, stream: true, messages: [{ role: "user", content: "[cutoff] seven eight nine ten" }] })
    ).text();
    expect(raw).not.toContain("data: [DONE]");
    expect(raw).toMatch(/data: \{"error":\{"message":".*","type":"server_error","param":null,"code":"upstream_error"\}\}\n\n$/);
  });

  it("chat completions: the AI SDK reports the error", async () => {
    const id = await echoFlow();
    const errors: unknown[] = [];
    const result = streamText({
      model: aiProvider().chat(id),
      prompt: "[cutoff] one two three four five six",
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    let text = "";
    for await (const part of result.textStream) text += part;
    expect(text).toContain("echo:");
    expect(errors.length).toBeGreaterThan(0);
    expect(await result.finishReason).toBe("error");
  });

  it("responses: response.failed then an error event; the openai SDK throws, the AI SDK reports it", async () => {
    const id = await echoFlow();
    const stream = await openaiClient().responses.create({ model: id, input: "[cutoff] one two three four five six", stream: true });
    const types: string[] = [];
    const err = await (async () => {
      for await (const event of stream) types.push(event.type);
    })().catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(types).toContain("response.output_text.delta");
    expect(types.at(-1)).toBe("response.failed");

    const errors: unknown[] = [];
    const result = streamText({
      model: aiProvider().responses(id),
      prompt: "[cutoff] seven eight nine ten eleven",
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    for await (const _ of result.textStream) {
      /* drain */
    }
    expect(errors.length).toBeGreaterThan(0);
  });
});

describe("every answer of the /openai paths is OpenAI's shape", () => {
  it("an unknown route and a body over the size limit", async () => {
    await openAIError(await call("GET", "/openai/nothing-here"), 404);
    const big = "x".repeat(6 * 1024 * 1024);
    const tooBig = await openAIError(
      await call("POST", "/openai/chat/completions", { raw: big, headers: { "content-type": "application/json" } }),
      413,
    );
    expect(tooBig.code).toBe("request_too_large");
  });
});
