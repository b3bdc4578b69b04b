// Issue 8, point 2: PUT /chatmessage/abort/{chatflowid}/{chatId} without a token stopped the runs
// of private and key-bound chatflows. Abort now follows the rule for running that chatflow.
import { describe, expect, it } from "vitest";
import { call, expectError, json } from "../helpers";
import { framesOf, openAICredential, saveChain } from "./helpers";
import { keyWith } from "./keys";

const saveFlow = async (extra: Record<string, unknown> = {}) =>
  saveChain({ model: "chatOpenAI", credential: await openAICredential("sk-test"), extra });
const eventsOf = async (res: Response) => (await framesOf(res)).map((f) => f.event);

/** Starts a slow streaming run (each token after the first waits 300 ms) and waits until it is under way. */
async function startRun(flowId: string, chatId: string, token?: string): Promise<Response> {
  const res = await call("POST", `/prediction/${flowId}`, { token, body: { question: "[slow] x", streaming: true, chatId } });
  expect(res.status).toBe(200);
  await new Promise((r) => setTimeout(r, 150));
  return res;
}

const stored = (flowId: string) => json<any[]>("GET", `/chatmessage/${flowId}`);

describe("abort follows the run rule", () => {
  it("an anonymous caller cannot stop a private chatflow's run: 401, and the run completes and is stored", async () => {
    const id = await saveFlow();
    const run = await startRun(id, "victim-chat");
    const err = await expectError(await call("PUT", `/chatmessage/abort/${id}/victim-chat`, { token: null }), 401);
    expect(err.message).toMatch(/not public/);
    await expectError(await call("PUT", `/chatmessage/abort/${id}/victim-chat`, { token: "not-a-real-key-not-a-real-key" }), 401);
    const events = await eventsOf(run);
    expect(events).not.toContain("error");
    expect(events.slice(-2)).toEqual(["metadata", "end"]);
    expect((await stored(id)).map((m) => m.role)).toEqual(["userMessage", "apiMessage"]);
  }, 20_000);

  it("a key-bound chatflow's run stops only for its key (or the admin key)", async () => {
    const owner = await keyWith();
    const stranger = await keyWith();
    const id = await saveFlow({ apikeyid: owner.id });
    const run = await startRun(id, "bound-chat", owner.apiKey);
    await expectError(await call("PUT", `/chatmessage/abort/${id}/bound-chat`, { token: null }), 401);
    await expectError(await call("PUT", `/chatmessage/abort/${id}/bound-chat`, { token: stranger.apiKey }), 401);
    expect(await json("PUT", `/chatmessage/abort/${id}/bound-chat`, { token: owner.apiKey })).toEqual({ aborted: true });
    expect(await eventsOf(run)).toContain("error");
    expect(await stored(id)).toEqual([]);
  });

  it("a key limited to other chatflows cannot stop this one (403)", async () => {
    const id = await saveFlow();
    const elsewhere = await saveFlow();
    const limited = await keyWith([], [elsewhere]);
    const run = await startRun(id, "scoped-chat");
    expect(
      (await expectError(await call("PUT", `/chatmessage/abort/${id}/scoped-chat`, { token: limited.apiKey }), 403)).message,
    ).toContain("limited to other chatflows");
    expect(await eventsOf(run)).not.toContain("error");
  }, 20_000);

  it("the widget's stop button still works on a public chatflow, from an allowed origin only", async () => {
    const chatbotConfig = JSON.stringify({ allowedOrigins: ["https://shop.example"], allowedOriginsError: "Not here" });
    const id = await saveFlow({ isPublic: true, chatbotConfig });
    const run = await startRun(id, "widget-chat", undefined);
    const foreign = await call("PUT", `/chatmessage/abort/${id}/widget-chat`, { token: null, headers: { origin: "https://evil.example" } });
    expect((await expectError(foreign, 403)).message).toBe("Not here");
    expect(await json("PUT", `/chatmessage/abort/${id}/widget-chat`, { token: null, headers: { origin: "https://shop.example" } })).toEqual(
      { aborted: true },
    );
    expect(await eventsOf(run)).toContain("error");
  });

  it("an unknown chatflow is 404", async () => {
    await expectError(await call("PUT", `/chatmessage/abort/${crypto.randomUUID()}/c`, { token: null }), 404);
  });
});
