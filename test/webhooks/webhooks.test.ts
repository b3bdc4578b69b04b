// Issue 22, webhooks: /webhook/{id} runs an agentflow whose Start node is a webhook trigger, as
// Flowise 3.1.4 does — no bearer, the Start node's method / content type / shape checks, its
// secret (HMAC of the raw body or a plain token), `$webhook.*` in the flow, chatType WEBHOOK, the
// flow's rate limit — and such a flow is refused on POST /prediction.
import { describe, expect, it } from "vitest";
import {
  afEdge,
  directReply,
  humanInput,
  llm,
  messagesOf,
  openAICredential,
  readStream,
  saveAgentflowOf,
  standinUrl,
} from "../agentflow-api/flows";
import { call, expectError, json } from "../helpers";
import { hmacHex, hook, newSecret, saveWebhookFlow, webhookStart } from "./helpers";

describe("a webhook flow, sync", () => {
  it("answers the prediction JSON with $webhook.body/.query/.headers resolved; the exchange is stored as WEBHOOK", async () => {
    const id = await saveWebhookFlow(
      { webhookDefaultInput: "Issue {{ $webhook.body.issue.number }} by {{ $webhook.query.who }}" },
      "body={{ $webhook.body.name }} query={{ $webhook.query.who }} agent={{ $webhook.headers.user-agent }} missing={{ $webhook.body.nope }}",
    );
    const res = await hook(id, {
      body: { name: "Ada", issue: { number: 7 } },
      query: "who=bob",
      headers: { "user-agent": "GitHub-Hookshot/1" },
    });
    expect(res.status).toBe(200);
    const answer = await res.json<any>();
    expect(answer.text).toBe("body=Ada query=bob agent=GitHub-Hookshot/1 missing={{ $webhook.body.nope }}");
    expect(answer.question).toBe("Issue 7 by bob");
    expect(answer).toMatchObject({ chatId: expect.any(String), executionId: expect.any(String) });
    const messages = (await messagesOf(id)).filter((m) => m.chatId === answer.chatId);
    expect(messages.map((m) => [m.role, m.content, m.chatType])).toEqual([
      ["userMessage", "Issue 7 by bob", "WEBHOOK"],
      ["apiMessage", answer.text, "WEBHOOK"],
    ]);
    // The Start node keeps the request: what a resume would read.
    const execution = await json("GET", `/executions/${answer.executionId}`);
    const startOut = JSON.parse(execution.executionData)[0].data.output;
    expect(startOut.webhook).toMatchObject({ body: { name: "Ada", issue: { number: 7 } }, query: { who: "bob" } });
  });

  it("redacts credentials in $webhook.headers (and the signature header)", async () => {
    const id = await saveWebhookFlow(
      { webhookEnableAuth: true, webhookSignatureType: "plain-token", webhookSignatureHeader: "X-Token" },
      "auth={{ $webhook.headers.authorization }} key={{ $webhook.headers.x-api-key }} token={{ $webhook.headers.x-token }} ok={{ $webhook.headers.x-kind }}",
    );
    const secret = await newSecret(id);
    const res = await hook(id, {
      body: {},
      headers: { authorization: "Bearer sk-live-123", "x-api-key": "k", "x-token": secret, "x-kind": "push" },
    });
    expect((await res.json<any>()).text).toBe("auth=[REDACTED] key=[REDACTED] token=[REDACTED] ok=push");
  });

  it("payload mode hands the whole request to the flow as JSON (the model's input, the stored message); none mode a blank input", async () => {
    const cred = await openAICredential();
    const { id } = await saveAgentflowOf(
      [webhookStart({ webhookInputMode: "payload" }), llm("llmAgentflow_0", cred)],
      [afEdge("startAgentflow_0", "llmAgentflow_0")],
    );
    const res = await hook(id, { body: { marker: "payload-marker-22" }, query: "q=2" });
    expect(res.status).toBe(200);
    const answer = await res.json<any>();
    const sent = await (await fetch(`${standinUrl()}/requests?contains=payload-marker-22`)).json<any[]>();
    const user = sent.at(-1).body.messages.findLast((m: any) => m.role === "user");
    expect(JSON.parse(user.content)).toMatchObject({
      body: { marker: "payload-marker-22" },
      query: { q: "2" },
      headers: { "content-type": "application/json" },
    });
    const [stored] = (await messagesOf(id)).filter((m) => m.chatId === answer.chatId && m.role === "userMessage");
    expect(JSON.parse(stored.content)).toMatchObject({ body: { marker: "payload-marker-22" } });

    const none = await saveWebhookFlow({ webhookInputMode: "none" }, "[{{ question }}]");
    expect((await (await hook(none, { body: { a: 1 } })).json<any>()).text).toBe("[ ]");
  });

  it("reads a form body, unwrapping GitHub's JSON `payload` field, and a plain text body", async () => {
    const id = await saveWebhookFlow({}, "{{ $webhook.body.action }}/{{ $webhook.body.a }}");
    const form = await hook(id, {
      raw: `payload=${encodeURIComponent(JSON.stringify({ action: "opened" }))}`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect((await form.json<any>()).text).toBe("opened/{{ $webhook.body.a }}");
    const plain = await hook(id, { raw: "a=1&a=2", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect((await plain.json<any>()).text).toBe('{{ $webhook.body.action }}/["1","2"]');
    const text = await saveWebhookFlow({}, "text={{ $webhook.body }}");
    // `$webhook.body` alone is no path: the reference stays; the body is the text.
    const t = await hook(text, { raw: "hello", headers: { "content-type": "text/plain" } });
    expect(t.status).toBe(200);
  });

  it("takes any method unless the Start node names one (405 with Allow otherwise)", async () => {
    const any = await saveWebhookFlow();
    expect((await hook(any, { method: "GET" })).status).toBe(200);
    expect((await hook(any, { method: "PUT", body: { name: "x" } })).status).toBe(200);
    const post = await saveWebhookFlow({ webhookMethod: "POST" });
    const res = await hook(post, { method: "GET" });
    expect(res.headers.get("allow")).toBe("POST");
    expect((await expectError(res, 405)).message).toBe("Method GET not allowed. Expected POST");
  });

  it("needs no bearer even for a flow bound to an API key; a flow that is no webhook is 404; a bad id 400", async () => {
    const key = await json("POST", "/apikey", { body: { keyName: `hook-${crypto.randomUUID()}` } });
    const bound = await saveWebhookFlow({}, "ok", { apikeyid: key.id });
    expect((await hook(bound, { body: {} })).status).toBe(200);
    const { id: chat } = await saveAgentflowOf([directReply("directReplyAgentflow_0", "x")], []);
    expect((await expectError(await hook(chat, { body: {} }), 404)).message).toMatch(/not configured as a webhook trigger/);
    await expectError(await hook(crypto.randomUUID(), { body: {} }), 404);
    await expectError(await hook("not-a-uuid", { body: {} }), 400);
  });

  it("is refused on POST /prediction (400 naming the webhook URL)", async () => {
    const id = await saveWebhookFlow({ webhookMethod: "put" });
    const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "hi" } }), 400);
    expect(err.message).toBe(`This flow is configured as a Webhook Trigger. Call PUT /api/v1/webhook/${id} instead of the prediction API.`);
  });

  it("applies the flow's rate limit (429 with its message)", async () => {
    const apiConfig = JSON.stringify({ rateLimit: { status: true, limitMax: 1, limitDuration: 60, limitMsg: "slow down, hook" } });
    const id = await saveWebhookFlow({}, "ok", { apiConfig });
    expect((await hook(id, { body: {} })).status).toBe(200);
    expect((await expectError(await hook(id, { body: {} }), 429)).message).toBe("slow down, hook");
  });
});

describe("human input through the webhook", () => {
  it("a body with humanInput resumes the paused execution (shape checks skipped); $webhook still reads the request that started it", async () => {
    const { id } = await saveAgentflowOf(
      [
        webhookStart({ webhookEnableValidation: true, webhookBodyParams: [{ name: "order", type: "string", required: true }] }),
        humanInput("humanInputAgentflow_0", "Ship?"),
        directReply("directReplyAgentflow_0", "shipped {{ $webhook.body.order }}"),
        directReply("directReplyAgentflow_1", "held"),
      ],
      [
        afEdge("startAgentflow_0", "humanInputAgentflow_0"),
        afEdge("humanInputAgentflow_0", "directReplyAgentflow_0", 0),
        afEdge("humanInputAgentflow_0", "directReplyAgentflow_1", 1),
      ],
    );
    const paused = await (await hook(id, { body: { order: "A-1" } })).json<any>();
    expect(paused.action).toBeDefined();
    const res = await hook(id, { body: { chatId: paused.chatId, humanInput: { type: "proceed", executionId: paused.executionId } } });
    expect(res.status).toBe(200);
    expect((await res.json<any>()).text).toBe("shipped A-1");
  });
});

describe("content type and shape", () => {
  it("415 for another content type; 400 for a JSON body that is not JSON", async () => {
    const id = await saveWebhookFlow({ webhookContentType: "application/json" });
    const res = await hook(id, { raw: "a=1", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect((await expectError(res, 415)).message).toBe(
      "Content-Type application/x-www-form-urlencoded not allowed. Expected application/json",
    );
    expect((await expectError(await hook(id, { raw: "{nope", headers: { "content-type": "application/json" } }), 400)).message).toMatch(
      /not valid JSON/,
    );
    // No body: nothing to check the type of.
    expect((await hook(id, { method: "POST" })).status).toBe(200);
  });

  it("400 naming each missing header, body and query parameter, and each mistyped one", async () => {
    const id = await saveWebhookFlow({
      webhookEnableValidation: true,
      webhookHeaderParams: [
        { name: "X-GitHub-Event", required: true },
        { name: "X-Optional", required: false },
      ],
      webhookBodyParams: [
        { name: "action", type: "string", required: true },
        { name: "count", type: "number", required: true },
        { name: "flag", type: "boolean" },
        { name: "tags", type: "array[string]" },
        { name: "meta", type: "object" },
      ],
      webhookQueryParams: [{ name: "page", required: true }],
    });
    const ok = { action: "opened", count: "3", flag: "true", tags: ["a"], meta: { x: 1 } };
    const headers = { "x-github-event": "push" };
    expect((await expectError(await hook(id, { body: ok, query: "page=1" }), 400)).message).toBe(
      "Missing required headers: X-GitHub-Event",
    );
    expect((await expectError(await hook(id, { body: { flag: true }, headers, query: "page=1" }), 400)).message).toBe(
      "Missing required webhook body parameters: action, count",
    );
    const mistyped = { action: 5, count: "three", flag: "yes", tags: [1], meta: [1] };
    expect((await expectError(await hook(id, { body: mistyped, headers, query: "page=1" }), 400)).message).toBe(
      "Invalid type for parameter(s): action, count, flag, tags, meta",
    );
    expect((await expectError(await hook(id, { body: ok, headers }), 400)).message).toBe("Missing required query parameters: page");
    expect((await hook(id, { body: ok, headers, query: "page=1" })).status).toBe(200);
  });

  it("413 for a body over 1 MB, before any run", async () => {
    const id = await saveWebhookFlow();
    await expectError(
      await hook(id, { raw: JSON.stringify({ big: "x".repeat(1_100_000) }), headers: { "content-type": "application/json" } }),
      413,
    );
    await expectError(await hook(id, { raw: "x".repeat(10 * 1024 * 1024), headers: { "content-type": "text/plain" } }), 413);
    expect((await messagesOf(id)).length).toBe(0);
  });
});

describe("signatures", () => {
  it("accepts sha256=<hex>, sha1=<hex> and bare hex HMACs of the raw body; 401 for a wrong, short or missing one", async () => {
    const id = await saveWebhookFlow({ webhookEnableAuth: true, webhookSignatureHeader: "X-Hub-Signature-256" });
    const secret = await newSecret(id);
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const raw = JSON.stringify({ name: "signed" });
    const headers = (sig: string) => ({ "content-type": "application/json", "x-hub-signature-256": sig });
    const sha256 = await hmacHex(raw, secret);
    for (const sig of [`sha256=${sha256}`, sha256, sha256.toUpperCase(), `sha1=${await hmacHex(raw, secret, "SHA-1")}`]) {
      const res = await hook(id, { raw, headers: headers(sig) });
      expect(res.status, sig).toBe(200);
      expect((await res.json<any>()).text).toBe("got signed");
    }
    // The same signature over other bytes (a re-serialised body) fails.
    expect(
      (await expectError(await hook(id, { raw: JSON.stringify({ name: "signed" }, null, 1), headers: headers(`sha256=${sha256}`) }), 401))
        .message,
    ).toBe("Invalid webhook signature");
    await expectError(await hook(id, { raw, headers: headers(`sha256=${sha256.slice(0, 40)}`) }), 401);
    await expectError(await hook(id, { raw, headers: headers(`sha1=${sha256}`) }), 401);
    await expectError(await hook(id, { raw, headers: headers("sha256=zz") }), 401);
    await expectError(await hook(id, { raw, headers: headers(`sha256=${await hmacHex(raw, "wrong-secret")}`) }), 401);
    expect((await expectError(await hook(id, { raw, headers: { "content-type": "application/json" } }), 401)).message).toBe(
      "Missing signature header: x-hub-signature-256",
    );
    expect((await messagesOf(id)).filter((m) => m.role === "userMessage")).toHaveLength(4);
  });

  it("plain token: the secret itself, compared whole", async () => {
    const id = await saveWebhookFlow({
      webhookEnableAuth: true,
      webhookSignatureType: "plain-token",
      webhookSignatureHeader: "X-Gitlab-Token",
    });
    const secret = await newSecret(id);
    expect((await hook(id, { body: { name: "gl" }, headers: { "x-gitlab-token": secret } })).status).toBe(200);
    await expectError(await hook(id, { body: { name: "gl" }, headers: { "x-gitlab-token": secret.slice(0, -1) } }), 401);
    await expectError(await hook(id, { body: { name: "gl" }, headers: { "x-webhook-signature": secret } }), 401);
  });

  it("a new secret replaces the old; DELETE clears it; without one a signed flow refuses every request", async () => {
    const id = await saveWebhookFlow({ webhookEnableAuth: true, webhookSignatureType: "plain-token" });
    expect((await expectError(await hook(id, { body: {}, headers: { "x-webhook-signature": "anything" } }), 401)).message).toMatch(
      /no secret has been generated/,
    );
    const first = await newSecret(id);
    const second = await newSecret(id);
    expect(second).not.toBe(first);
    await expectError(await hook(id, { body: {}, headers: { "x-webhook-signature": first } }), 401);
    expect((await hook(id, { body: {}, headers: { "x-webhook-signature": second } })).status).toBe(200);
    expect(await json("DELETE", `/chatflows/${id}/webhook-secret`)).toEqual({ deleted: 1 });
    expect(await json("DELETE", `/chatflows/${id}/webhook-secret`)).toEqual({ deleted: 0 });
    await expectError(await hook(id, { body: {}, headers: { "x-webhook-signature": second } }), 401);
  });

  it("keeps the secret encrypted at rest, never in the flow's record; needs a key with update rights", async () => {
    const id = await saveWebhookFlow();
    const secret = await newSecret(id);
    const { env } = await import("cloudflare:workers");
    const row = await env.DB.prepare("SELECT encryptedSecret FROM webhook_secret WHERE chatflowId = ?")
      .bind(id)
      .first<{ encryptedSecret: string }>();
    expect(row!.encryptedSecret).not.toContain(secret);
    expect(JSON.stringify(await json("GET", `/chatflows/${id}`))).not.toContain(secret);
    const viewer = await json("POST", "/apikey", { body: { keyName: `viewer-${crypto.randomUUID()}`, permissions: ["agentflows:view"] } });
    await expectError(await call("POST", `/chatflows/${id}/webhook-secret`, { token: viewer.apiKey }), 403);
    await expectError(await call("POST", `/chatflows/${crypto.randomUUID()}/webhook-secret`), 404);
  });
});

describe("stream mode", () => {
  it("answers Flowise's event stream when the flow can stream", async () => {
    const cred = await openAICredential();
    const { id } = await saveAgentflowOf(
      [webhookStart({ webhookResponseMode: "stream", webhookDefaultInput: "Say {{ $webhook.body.word }}" }), llm("llmAgentflow_0", cred)],
      [afEdge("startAgentflow_0", "llmAgentflow_0")],
    );
    const res = await hook(id, { body: { word: "stream-marker-22" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const { frames } = await readStream(res);
    const events = frames.map((f) => f.event);
    expect(events).toContain("token");
    expect(events).toContain("metadata");
    expect(events.at(-1)).toBe("end");
    // The model was sent the question made from the webhook.
    const sent = await (await fetch(`${standinUrl()}/requests?contains=stream-marker-22`)).json<any[]>();
    expect(JSON.stringify(sent.at(-1).body.messages)).toContain("Say stream-marker-22");
  });
});
