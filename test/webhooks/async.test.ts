// Issue 22, webhooks in async mode: 202 at once, the run detached on Cloudflare Workflows (the test
// runner runs them locally) and stored as a webhook's (chatType WEBHOOK, `$webhook.*` kept), then
// Flowise's callback to the Start node's callbackUrl — {status, chatId, data|error}, signed with
// its callbackSecret in X-Flowise-Signature — received by the loopback stand-in.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { afEdge, afNode, directReply, humanInput, messagesOf, saveAgentflowOf, standinUrl } from "../agentflow-api/flows";
import { expectError, json, sleep } from "../helpers";
import { setVars } from "../security/helpers";
import { hmacHex, hook, webhookStart } from "./helpers";

vi.setConfig({ testTimeout: 30_000 });
let restore: () => void;
beforeAll(() => {
  restore = setVars({ OUTBOUND_ALLOW: new URL(standinUrl()).host });
});
afterAll(() => restore());

const CALLBACK_SECRET = "start-node-callback-secret";

async function settled(executionId: string, ms = 20_000): Promise<any> {
  const until = Date.now() + ms;
  for (;;) {
    const row = await json("GET", `/executions/${executionId}`);
    if (row.state !== "INPROGRESS") return row;
    if (Date.now() > until) throw new Error(`execution ${executionId} still INPROGRESS after ${ms} ms`);
    await sleep(50);
  }
}

/** The callbacks the stand-in received whose body names `marker`, waiting for `count`. */
async function callbacks(marker: string, count = 1, ms = 20_000): Promise<any[]> {
  const until = Date.now() + ms;
  for (;;) {
    const list = ((await (await fetch(`${standinUrl()}/requests?contains=${marker}`)).json()) as any[]).filter((r) =>
      r.path.startsWith("/callback"),
    );
    if (list.length >= count || Date.now() > until) return list;
    await sleep(50);
  }
}

const asyncStart = (over: Record<string, unknown> = {}) =>
  webhookStart({
    webhookResponseMode: "async",
    callbackUrl: `${standinUrl()}/callback/webhook`,
    callbackSecret: CALLBACK_SECRET,
    webhookDefaultInput: "order {{ $webhook.body.order }}",
    ...over,
  });

describe("async webhooks", () => {
  it("answers 202 {chatId, executionId, status: PROCESSING}; the run ends FINISHED and calls back signed, Flowise's way", async () => {
    const { id } = await saveAgentflowOf(
      [asyncStart(), directReply("directReplyAgentflow_0", "done {{ $webhook.body.order }} via {{ $webhook.query.src }}")],
      [afEdge("startAgentflow_0", "directReplyAgentflow_0")],
    );
    const order = `order-${crypto.randomUUID()}`;
    const res = await hook(id, { body: { order }, query: "src=shop" });
    expect(res.status).toBe(202);
    const accepted = await res.json<any>();
    expect(accepted).toEqual({ chatId: expect.any(String), executionId: expect.any(String), status: "PROCESSING" });

    const row = await settled(accepted.executionId);
    expect(row.state).toBe("FINISHED");
    expect(row.result).toMatchObject({ chatId: accepted.chatId, text: `done ${order} via shop`, question: `order ${order}` });
    const stored = (await messagesOf(id)).filter((m) => m.chatId === accepted.chatId);
    expect(stored.map((m) => [m.role, m.chatType])).toEqual([
      ["userMessage", "WEBHOOK"],
      ["apiMessage", "WEBHOOK"],
    ]);

    const [cb] = await callbacks(order);
    expect(cb.path).toBe("/callback/webhook");
    expect(cb.body).toMatchObject({
      status: "SUCCESS",
      chatId: accepted.chatId,
      data: { text: `done ${order} via shop`, executionId: accepted.executionId },
    });
    expect(cb.body).not.toHaveProperty("executionId"); // Flowise's body: {status, chatId, data}
    expect(cb.headers["x-flowise-signature"]).toBe(`sha256=${await hmacHex(JSON.stringify(cb.body), CALLBACK_SECRET)}`);
    expect(cb.headers["x-edgeflow-signature"]).toBeUndefined();
  });

  it("a pause calls back STOPPED with the question and action; a failure calls back ERROR", async () => {
    const order = `pause-${crypto.randomUUID()}`;
    const { id } = await saveAgentflowOf(
      [
        asyncStart(),
        humanInput("humanInputAgentflow_0", `Ship ${"{{ $webhook.body.order }}"}?`),
        directReply("directReplyAgentflow_0", "shipped"),
        directReply("directReplyAgentflow_1", "held"),
      ],
      [
        afEdge("startAgentflow_0", "humanInputAgentflow_0"),
        afEdge("humanInputAgentflow_0", "directReplyAgentflow_0", 0),
        afEdge("humanInputAgentflow_0", "directReplyAgentflow_1", 1),
      ],
    );
    const accepted = await (await hook(id, { body: { order } })).json<any>();
    expect((await settled(accepted.executionId)).state).toBe("STOPPED");
    const [cb] = await callbacks(order);
    expect(cb.body).toMatchObject({
      status: "STOPPED",
      chatId: accepted.chatId,
      data: { executionId: accepted.executionId, action: { mapping: expect.any(Object) } },
    });
    expect(Object.keys(cb.body.data).sort()).toEqual(["action", "executionId", "text"]);

    const failing = `fail-${crypto.randomUUID()}`;
    const cf = afNode("customFunctionAgentflow_0", "Fail", { customFunctionJavascriptFunction: "throw new Error('boom')" });
    const { id: bad } = await saveAgentflowOf(
      [asyncStart({ callbackUrl: `${standinUrl()}/callback/${failing}` }), cf],
      [afEdge("startAgentflow_0", "customFunctionAgentflow_0")],
    );
    const failed = await (await hook(bad, { body: { order: failing } })).json<any>();
    expect((await settled(failed.executionId)).state).toBe("ERROR");
    const [err] = await callbacks(failed.chatId);
    expect(err.body).toMatchObject({ status: "ERROR", chatId: failed.chatId, error: expect.stringContaining("boom") });
  });

  it("without a callbackUrl runs fire-and-forget; a callbackUrl the outbound policy refuses is a 400 and starts nothing", async () => {
    const { id } = await saveAgentflowOf(
      [asyncStart({ callbackUrl: "" }), directReply("directReplyAgentflow_0", "quiet")],
      [afEdge("startAgentflow_0", "directReplyAgentflow_0")],
    );
    const accepted = await (await hook(id, { body: {} })).json<any>();
    expect((await settled(accepted.executionId)).state).toBe("FINISHED");

    const { id: refused } = await saveAgentflowOf(
      [asyncStart({ callbackUrl: "http://169.254.169.254/latest" }), directReply("directReplyAgentflow_0", "x")],
      [afEdge("startAgentflow_0", "directReplyAgentflow_0")],
    );
    expect((await expectError(await hook(refused, { body: {} }), 400)).message).toMatch(/^The Start node's callbackUrl: /);
    expect((await json("GET", `/executions?agentflowId=${refused}`)).data).toEqual([]);
  });
});
