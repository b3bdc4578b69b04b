import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import conversationChain from "../engine/fixtures/conversation-chain.json";
import llmChain from "../engine/fixtures/llm-chain.json";
import listParser from "../engine/fixtures/list-output-parser.json";
import toolAgent from "../engine/fixtures/tool-agent.json";
import { type Fixture, closedUrl, flowDataOf, pointAtStandin, standinUrl } from "../engine/helpers";
import { call, expectError, json } from "../helpers";
import { setVars } from "../security/helpers";

async function openAICredential(): Promise<string> {
  return (
    await json("POST", "/credentials", { body: { name: "openai", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-test" } } })
  ).id;
}

/** Saves a fixture as a chatflow, its chat model pointed at the stand-in (or `base`). */
async function saveFlow(fixture: unknown, extra: Record<string, unknown> = {}, base?: string): Promise<string> {
  const cred = await openAICredential();
  const flowData = flowDataOf(fixture as Fixture, (nodes) => {
    for (const node of nodes.values()) if (node.data.category === "Chat Models") pointAtStandin(node, cred, base);
  });
  return (await json("POST", "/chatflows", { body: { name: "flow", flowData, ...extra } })).id;
}

const messagesOf = (flowId: string) => json<any[]>("GET", `/chatmessage/${flowId}`);

/** Reads an event stream to the end; answers the raw text and when each frame arrived. */
async function readStream(res: Response): Promise<{ raw: string; frames: { event: string; data: any; at: number }[] }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const t0 = Date.now();
  let raw = "";
  let buffered = "";
  const frames: { event: string; data: any; at: number }[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const text = decoder.decode(value, { stream: true });
    raw += text;
    buffered += text;
    let cut: number;
    while ((cut = buffered.indexOf("\n\n")) >= 0) {
      const block = buffered.slice(0, cut);
      buffered = buffered.slice(cut + 2);
      const dataLine = block.split("\n").find((l) => l.startsWith("data:"));
      if (dataLine) frames.push({ ...JSON.parse(dataLine.slice(5)), at: Date.now() - t0 });
    }
  }
  return { raw, frames };
}

describe("POST /prediction/{id} (JSON)", () => {
  it("runs the llm-chain template and stores the question then the answer", async () => {
    const id = await saveFlow(llmChain);
    const answer = await json("POST", `/prediction/${id}`, { body: { question: "socks" } });
    expect(answer.text).toContain("What is a good name for a company that makes socks?");
    expect(answer).toMatchObject({
      question: "socks",
      json: null,
      memoryType: null,
      sourceDocuments: [],
      usedTools: [],
      isStreamValid: true,
    });
    expect(answer.sessionId).toBe(answer.chatId);

    const stored = await messagesOf(id);
    expect(stored.map((m) => [m.role, m.content, m.chatType])).toEqual([
      ["userMessage", "socks", "EXTERNAL"],
      ["apiMessage", answer.text, "EXTERNAL"],
    ]);
    expect(stored[1].id).toBe(answer.chatMessageId);
    expect(stored[0].createdDate <= stored[1].createdDate).toBe(true);
  });

  it("remembers the session across two turns (conversation chain + buffer memory)", async () => {
    const id = await saveFlow(conversationChain);
    const first = await json("POST", `/prediction/${id}`, { body: { question: "my name is Ada" } });
    expect(first.memoryType).toBe("Buffer Memory");
    const marker = crypto.randomUUID();
    await json("POST", `/prediction/${id}`, { body: { question: `what is my name? ${marker}`, chatId: first.chatId } });
    const sent = await (await fetch(`${standinUrl()}/requests?contains=${marker}`)).json<any[]>();
    const lastRequest = JSON.stringify(sent.at(-1));
    expect(lastRequest).toContain("my name is Ada");
    expect(lastRequest).toContain(first.text);
    expect(await messagesOf(id)).toHaveLength(4);
  });

  it("takes chatId and sessionId from overrideConfig.sessionId, and prepends history", async () => {
    const id = await saveFlow(conversationChain);
    const marker = crypto.randomUUID();
    const answer = await json("POST", `/prediction/${id}`, {
      body: {
        question: `hello ${marker}`,
        overrideConfig: { sessionId: "s-1" },
        history: [
          { role: "userMessage", content: "earlier question" },
          { role: "apiMessage", content: "earlier answer" },
        ],
      },
    });
    expect(answer).toMatchObject({ chatId: "s-1", sessionId: "s-1" });
    const sent = JSON.stringify((await (await fetch(`${standinUrl()}/requests?contains=${marker}`)).json<any[]>()).at(-1));
    expect(sent).toContain("earlier answer");
  });

  it("answers an output parser's result in json", async () => {
    const id = await saveFlow(listParser);
    const answer = await json("POST", `/prediction/${id}`, { body: { question: "[csv] three letters" } });
    expect(answer.json).toEqual(["a", "b", "c"]);
    expect(answer.isStreamValid).toBe(false);
  });

  it("stores data-URI uploads in R2 and records them without their data", async () => {
    const id = await saveFlow(llmChain);
    const data = `data:text/plain;base64,${btoa("hello file")}`;
    const answer = await json("POST", `/prediction/${id}`, {
      body: { question: "q", uploads: [{ type: "file", name: "note.txt", mime: "text/plain", data }] },
    });
    const object = await env.FILES.get(`${id}/${answer.chatId}/note.txt`);
    expect(await object?.text()).toBe("hello file");
    const [user] = await messagesOf(id);
    expect(user.fileUploads).toEqual([{ type: "stored-file", name: "note.txt", mime: "text/plain" }]);
  });

  it("accepts multipart with files", async () => {
    const id = await saveFlow(llmChain);
    const form = new FormData();
    form.set("question", "from a form");
    form.append("files", new File(["abc"], "a.txt", { type: "text/plain" }));
    const res = await call("POST", `/prediction/${id}`, { raw: form });
    expect(res.status).toBe(200);
    const answer = await res.json<any>();
    expect(answer.question).toBe("from a form");
    expect(await (await env.FILES.get(`${id}/${answer.chatId}/a.txt`))?.text()).toBe("abc");
  });

  it("applies overrideConfig only where apiConfig enables it", async () => {
    const marker = crypto.randomUUID();
    const apiConfig = JSON.stringify({
      overrideConfig: {
        status: true,
        nodes: {
          "Azure ChatOpenAI": [
            { name: "temperature", enabled: true },
            { name: "modelName", enabled: false },
          ],
        },
      },
    });
    const id = await saveFlow(llmChain, { apiConfig });
    await json("POST", `/prediction/${id}`, {
      body: { question: marker, overrideConfig: { temperature: 0.123, modelName: "not-allowed" } },
    });
    const [sent] = await (await fetch(`${standinUrl()}/requests?contains=${marker}`)).json<any[]>();
    expect(JSON.stringify(sent)).toContain("0.123");
    expect(JSON.stringify(sent)).not.toContain("not-allowed");
  });
});

describe("POST /prediction/{id} (errors)", () => {
  it("404 for an unknown chatflow, also when streaming", async () => {
    await expectError(await call("POST", `/prediction/${crypto.randomUUID()}`, { body: { question: "q" } }), 404);
    await expectError(await call("POST", `/prediction/${crypto.randomUUID()}`, { body: { question: "q", streaming: true } }), 404);
    await expectError(await call("POST", "/prediction/not-a-uuid", { body: { question: "q" } }), 400);
  });

  it("400 for malformed flowData, no ending node, a cycle and unsupported nodes — nothing stored", async () => {
    const cases: Record<string, string> = {
      noEnding: JSON.stringify({
        nodes: [{ id: "p", data: { id: "p", name: "promptTemplate", label: "P", category: "Prompts", inputs: {} } }],
        edges: [],
      }),
      // Flowise's Tool Agent with its search tool swapped for a node no registry has.
      unsupported: flowDataOf(toolAgent as unknown as Fixture).replaceAll('"name":"serpAPI"', '"name":"notARealTool"'),
      notGraph: JSON.stringify({ nodes: "nope" }),
    };
    for (const [name, flowData] of Object.entries(cases)) {
      const { id } = await json("POST", "/chatflows", { body: { name, flowData } });
      const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "q" } }), 400);
      if (name === "unsupported") expect(err.message).toContain("notARealTool");
      expect(await messagesOf(id)).toEqual([]);
    }
  });

  it("502 when the model endpoint is down, and nothing is stored", async () => {
    const id = await saveFlow(llmChain, {}, `${closedUrl()}/v1`);
    await expectError(await call("POST", `/prediction/${id}`, { body: { question: "q" } }), 502);
    expect(await messagesOf(id)).toEqual([]);
  });

  it("bad bodies: no question, malformed JSON, wrong content type, a 10 MB question", async () => {
    const id = await saveFlow(llmChain);
    await expectError(await call("POST", `/prediction/${id}`, { body: {} }), 400);
    await expectError(await call("POST", `/prediction/${id}`, { raw: "{", headers: { "content-type": "application/json" } }), 400);
    await expectError(await call("POST", `/prediction/${id}`, { raw: "q", headers: { "content-type": "text/plain" } }), 415);
    await expectError(await call("POST", `/prediction/${id}`, { body: { question: "x".repeat(10 * 1024 * 1024) } }), 413);
    await expectError(
      await call("POST", `/prediction/${id}`, { body: { question: "q", uploads: [{ type: "file", name: "x", data: "not a data uri" }] } }),
      400,
    );
  });
});

describe("access: public, per-chatflow key, allowed origins, rate limit", () => {
  it("a private chatflow needs a token; a public one does not", async () => {
    const privateId = await saveFlow(llmChain);
    await expectError(await call("POST", `/prediction/${privateId}`, { token: null, body: { question: "q" } }), 401);
    const publicId = await saveFlow(llmChain, { isPublic: true });
    expect((await call("POST", `/prediction/${publicId}`, { token: null, body: { question: "q" } })).status).toBe(200);
    await expectError(await call("POST", `/prediction/${publicId}`, { token: "wrong-token-wrong-token", body: { question: "q" } }), 401);
  });

  it("a chatflow bound to an API key takes only that key (or the admin key)", async () => {
    const bound = await json("POST", "/apikey", { body: { keyName: "bound" } });
    const other = await json("POST", "/apikey", { body: { keyName: "other" } });
    const id = await saveFlow(llmChain, { apikeyid: bound.id, isPublic: true });
    await expectError(await call("POST", `/prediction/${id}`, { token: null, body: { question: "q" } }), 401);
    await expectError(await call("POST", `/prediction/${id}`, { token: other.apiKey, body: { question: "q" } }), 401);
    expect((await call("POST", `/prediction/${id}`, { token: bound.apiKey, body: { question: "q" } })).status).toBe(200);
    expect((await call("POST", `/prediction/${id}`, { body: { question: "q" } })).status).toBe(200);
  });

  it("403 with allowedOriginsError for an origin not allowed; plain text when streaming; CORS headers kept", async () => {
    const chatbotConfig = JSON.stringify({ allowedOrigins: ["https://good.example"], allowedOriginsError: "Not on this site" });
    const id = await saveFlow(llmChain, { isPublic: true, chatbotConfig });
    const bad = await call("POST", `/prediction/${id}`, {
      token: null,
      headers: { origin: "https://evil.example" },
      body: { question: "q" },
    });
    expect(bad.headers.get("access-control-allow-origin")).toBeTruthy();
    expect((await expectError(bad, 403)).message).toBe("Not on this site");
    const streamed = await call("POST", `/prediction/${id}`, {
      token: null,
      headers: { origin: "https://evil.example" },
      body: { question: "q", streaming: true },
    });
    expect(streamed.status).toBe(403);
    expect(streamed.headers.get("content-type")).toContain("text/plain");
    expect(await streamed.text()).toBe("Not on this site");
    expect(
      (await call("POST", `/prediction/${id}`, { token: null, headers: { origin: "https://good.example/" }, body: { question: "q" } }))
        .status,
    ).toBe(200);
  });

  it("429 with limitMsg past apiConfig.rateLimit, per client IP behind Cloudflare", async () => {
    const apiConfig = JSON.stringify({ rateLimit: { status: true, limitMax: 2, limitDuration: 60, limitMsg: "Slow down" } });
    const id = await saveFlow(llmChain, { apiConfig });
    // As deployed: Cloudflare's edge sets CF-Connecting-IP (test/security/rate-limit.test.ts: untrusted otherwise).
    const restore = setVars({ TRUST_CF_CONNECTING_IP: "true" });
    try {
      const ip = { "cf-connecting-ip": "203.0.113.7" };
      for (let i = 0; i < 2; i++)
        expect((await call("POST", `/prediction/${id}`, { headers: ip, body: { question: "q" } })).status).toBe(200);
      expect((await expectError(await call("POST", `/prediction/${id}`, { headers: ip, body: { question: "q" } }), 429)).message).toBe(
        "Slow down",
      );
      const streamed = await call("POST", `/prediction/${id}`, { headers: ip, body: { question: "q", streaming: true } });
      expect([streamed.status, await streamed.text()]).toEqual([429, "Slow down"]);
      expect(
        (await call("POST", `/prediction/${id}`, { headers: { "cf-connecting-ip": "203.0.113.8" }, body: { question: "q" } })).status,
      ).toBe(200);
    } finally {
      restore();
    }
  });
});

describe("streaming", () => {
  it("sends Flowise's frames in order, the first token before the model finished", async () => {
    const id = await saveFlow(llmChain);
    const res = await call("POST", `/prediction/${id}`, { body: { question: "[slow] tell me", streaming: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    const { raw, frames } = await readStream(res);

    expect(raw.startsWith('message:\ndata:{"event":"start","data":""}\n\n')).toBe(true);
    expect(raw).not.toContain("data: ");
    const events = frames.map((f) => f.event);
    expect(events[0]).toBe("start");
    expect(events.slice(-2)).toEqual(["metadata", "end"]);
    expect(events.slice(1, -2).every((e) => e === "token")).toBe(true);
    const tokens = frames.filter((f) => f.event === "token");
    expect(tokens.length).toBeGreaterThan(2);
    // later tokens are delayed 300 ms each by the stand-in: the first must not wait for them
    expect(tokens.at(-1)!.at - tokens[0].at).toBeGreaterThan(400);
    expect(frames.at(-1)!.data).toBe("[DONE]");

    const metadata = frames.find((f) => f.event === "metadata")!.data;
    const stored = await messagesOf(id);
    expect(metadata).toMatchObject({
      chatId: stored[0].chatId,
      chatMessageId: stored[1].id,
      question: "[slow] tell me",
      sessionId: stored[0].chatId,
    });
    expect(stored[1].content).toBe(tokens.map((t) => t.data).join(""));
  });

  it("a model failure mid-run is an error frame then end, and nothing is stored", async () => {
    const id = await saveFlow(llmChain, {}, `${closedUrl()}/v1`);
    const res = await call("POST", `/prediction/${id}`, { body: { question: "q", streaming: true } });
    const { frames } = await readStream(res);
    expect(frames.map((f) => f.event)).toEqual(["error", "end"]);
    expect(typeof frames[0].data).toBe("string");
    expect(await messagesOf(id)).toEqual([]);
  });

  it("a flow that cannot stream answers JSON even when asked to stream", async () => {
    const id = await saveFlow(listParser);
    const res = await call("POST", `/prediction/${id}`, { body: { question: "[csv]", streaming: true } });
    expect(res.headers.get("content-type")).toContain("application/json");
    expect((await res.json<any>()).isStreamValid).toBe(false);
  });
});

describe("widget endpoints", () => {
  it("GET /chatflows-streaming/{id} needs no token and reveals only isStreaming", async () => {
    const streamable = await saveFlow(llmChain);
    const parsed = await saveFlow(listParser);
    expect(await json("GET", `/chatflows-streaming/${streamable}`, { token: null })).toEqual({ isStreaming: true });
    expect(await json("GET", `/chatflows-streaming/${parsed}`, { token: null })).toEqual({ isStreaming: false });
    await expectError(await call("GET", `/chatflows-streaming/${crypto.randomUUID()}`, { token: null }), 404);
  });

  it("GET /public-chatbotConfig/{id}: parsed config plus upload capabilities; 401 for a private chatflow", async () => {
    const chatbotConfig = JSON.stringify({ welcomeMessage: "hi", allowedOrigins: [] });
    const id = await saveFlow(llmChain, { isPublic: true, chatbotConfig });
    const config = await json("GET", `/public-chatbotConfig/${id}`, { token: null });
    expect(config).toMatchObject({
      welcomeMessage: "hi",
      uploads: { isImageUploadAllowed: false, isRAGFileUploadAllowed: false, isSpeechToTextEnabled: false },
    });
    const privateId = await saveFlow(llmChain);
    await expectError(await call("GET", `/public-chatbotConfig/${privateId}`, { token: null }), 401);
    expect((await call("GET", `/public-chatbotConfig/${privateId}`)).status).toBe(200);
  });

  it("PUT /chatmessage/abort/{chatflowid}/{chatId} stops a run in progress; nothing is stored", async () => {
    const id = await saveFlow(llmChain);
    const res = call("POST", `/prediction/${id}`, { body: { question: "[slow] long answer", streaming: true, chatId: "abort-me" } });
    const stream = await res;
    const reading = readStream(stream);
    await new Promise((r) => setTimeout(r, 150));
    expect(await json("PUT", `/chatmessage/abort/${id}/abort-me`)).toEqual({ aborted: true });
    const { frames } = await reading;
    expect(frames.at(-1)!.event).toBe("end");
    expect(frames.some((f) => f.event === "error")).toBe(true);
    expect(await messagesOf(id)).toEqual([]);
    expect(await json("PUT", `/chatmessage/abort/${id}/nothing-running`)).toEqual({ aborted: false });
  });
});

describe("abort of a JSON (non-streaming) run", () => {
  it("answers a clear 499 error, and stores nothing", async () => {
    const id = await saveFlow(llmChain);
    const pending = call("POST", `/prediction/${id}`, { body: { question: "[slow] json answer", chatId: "abort-json" } });
    await new Promise((r) => setTimeout(r, 150));
    expect(await json("PUT", `/chatmessage/abort/${id}/abort-json`)).toEqual({ aborted: true });
    const err = await expectError(await pending, 499);
    expect(err.message).toBe("The run was aborted");
    expect(await messagesOf(id)).toEqual([]);
  });
});

describe("history in the flowise-sdk shape", () => {
  it("accepts {type, message} entries as well as {role, content}", async () => {
    const id = await saveFlow(conversationChain);
    const marker = crypto.randomUUID();
    await json("POST", `/prediction/${id}`, {
      body: { question: `hi ${marker}`, history: [{ type: "apiMessage", message: "sdk-shaped history" }] },
    });
    const sent = JSON.stringify((await (await fetch(`${standinUrl()}/requests?contains=${marker}`)).json<any[]>()).at(-1));
    expect(sent).toContain("sdk-shaped history");
    await expectError(
      await call("POST", `/prediction/${id}`, { body: { question: "q", history: [{ type: "robot", message: "x" }] } }),
      400,
    );
  });
});

describe("credentials read beside the chatflow", () => {
  it("the model gets the node's credential, and odd graphs still answer their proper 400", async () => {
    const cred = await json("POST", "/credentials", {
      body: { name: "k", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-prefetched-key" } },
    });
    const flowData = flowDataOf(conversationChain as unknown as Fixture, (nodes) => {
      for (const node of nodes.values()) if (node.data.category === "Chat Models") pointAtStandin(node, cred.id);
    });
    const { id } = await json("POST", "/chatflows", { body: { name: "cred", flowData } });
    const marker = crypto.randomUUID();
    await json("POST", `/prediction/${id}`, { body: { question: marker } });
    const [sent] = await (await fetch(`${standinUrl()}/requests?contains=${marker}`)).json<any[]>();
    expect(sent.headers.authorization).toBe("Bearer sk-prefetched-key");

    for (const odd of ['{"nodes":"nope"}', '{"nodes":[1,"x",null]}', '{"nodes":[{"data":{"credential":42}}]}']) {
      const flow = await json("POST", "/chatflows", { body: { name: "odd", flowData: odd } });
      await expectError(await call("POST", `/prediction/${flow.id}`, { body: { question: "q" } }), 400);
    }
  });
});
