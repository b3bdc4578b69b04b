// The canvas's webhook listener (/webhook-listener, Flowise 3.1.4's paths): a listener registered
// for a webhook-triggered agentflow holds an event stream that says `listenerReady`, then carries
// the frames of every webhook run of the flow while it stays open — a sync run's (its tokens too),
// a streamed run's (the same frames its caller got), an async run's (from its event log) — and ends
// when the listener is removed. The webhook's own answer is unchanged.
import { describe, expect, it } from "vitest";
import { afEdge, directReply, llm, openAICredential, readStream, saveAgentflowOf, start } from "../agentflow-api/flows";
import { call, expectError, json, uuid } from "../helpers";
import { hook, saveWebhookFlow, webhookStart } from "./helpers";

interface Frame {
  event: string;
  data: any;
}

/** Reads a listener's stream as it comes: `until` waits for frames matching a condition. */
function follow(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const frames: Frame[] = [];
  let buffer = "";
  let ended = false;
  const pump = async (ms: number) => {
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`no frame within ${ms} ms: ${JSON.stringify(frames)}`)), ms),
    );
    const { done, value } = await Promise.race([reader.read(), timeout]);
    if (done) {
      ended = true;
      return;
    }
    buffer += decoder.decode(value, { stream: true });
    const records = buffer.split("\n\n");
    buffer = records.pop() ?? "";
    for (const record of records) {
      const data = record.split("\n").find((line) => line.startsWith("data:"));
      if (data) frames.push(JSON.parse(data.slice("data:".length)) as Frame);
    }
  };
  return {
    frames,
    async until(test: (frames: Frame[]) => boolean, ms = 15_000): Promise<Frame[]> {
      const deadline = Date.now() + ms;
      while (!test(frames)) {
        if (ended) throw new Error(`the stream ended first: ${JSON.stringify(frames)}`);
        await pump(Math.max(1, deadline - Date.now()));
      }
      return frames;
    },
    async ends(ms = 5_000): Promise<void> {
      const deadline = Date.now() + ms;
      while (!ended) await pump(Math.max(1, deadline - Date.now()));
    },
    cancel: () => reader.cancel().catch(() => undefined),
  };
}

async function listen(flowId: string) {
  const { listenerId } = await json<{ listenerId: string }>("POST", `/webhook-listener/${flowId}/register`);
  expect(listenerId).toMatch(/^wh-listener-[0-9a-f-]{36}$/);
  const res = await call("GET", `/webhook-listener/${flowId}/stream/${listenerId}`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const stream = follow(res);
  await stream.until((f) => f.length > 0);
  expect(stream.frames[0]).toEqual({ event: "listenerReady", data: { listenerId } });
  return { listenerId, stream };
}

const after = (frames: Frame[], i: number) => frames.slice(i);
const finished = (from: number) => (frames: Frame[]) => after(frames, from).some((f) => f.event === "end");
const states = (frames: Frame[]) => frames.filter((f) => f.event === "agentFlowEvent").map((f) => f.data);

describe("/webhook-listener", () => {
  it("a sync webhook run's frames reach the listener (states, nodes, metadata, end); the next call's too; removing it ends the stream", async () => {
    const flowId = await saveWebhookFlow({}, "got {{ $webhook.body.name }}");
    const { listenerId, stream } = await listen(flowId);

    const res = await hook(flowId, { body: { name: "Ada" } });
    expect(res.status).toBe(200);
    const answer = await res.json<any>();
    expect(answer.text).toBe("got Ada");
    const seen = after(await stream.until(finished(1)), 1);
    expect(states(seen)).toEqual(["INPROGRESS", "FINISHED"]);
    expect(seen.some((f) => f.event === "nextAgentFlow" && f.data.nodeId === "directReplyAgentflow_0")).toBe(true);
    const executed = seen.filter((f) => f.event === "agentFlowExecutedData").at(-1)!;
    expect(executed.data.at(-1)).toMatchObject({ nodeId: "directReplyAgentflow_0", status: "FINISHED" });
    expect(seen.find((f) => f.event === "metadata")!.data).toMatchObject({ chatId: answer.chatId, executionId: answer.executionId });
    expect(seen.at(-1)).toEqual({ event: "end", data: "[DONE]" });

    const mark = stream.frames.length;
    const second = await (await hook(flowId, { body: { name: "Bo" } })).json<any>();
    const next = after(await stream.until(finished(mark)), mark);
    expect(next.find((f) => f.event === "metadata")!.data.chatId).toBe(second.chatId);

    expect(await json("DELETE", `/webhook-listener/${flowId}/listener/${listenerId}`)).toEqual({ ok: true });
    await stream.ends();
    // Gone: its stream cannot be opened again.
    await expectError(await call("GET", `/webhook-listener/${flowId}/stream/${listenerId}`), 404);
  });

  it("a second stream for one listener replaces the first (which ends) and gets the next run", async () => {
    const flowId = await saveWebhookFlow({}, "again {{ $webhook.body.name }}");
    const { listenerId, stream: first } = await listen(flowId);
    const second = follow(await call("GET", `/webhook-listener/${flowId}/stream/${listenerId}`));
    await second.until((f) => f.length > 0);
    await first.ends();
    const answer = await (await hook(flowId, { body: { name: "Fy" } })).json<any>();
    const seen = after(await second.until(finished(1)), 1);
    expect(seen.find((f) => f.event === "metadata")!.data.chatId).toBe(answer.chatId);
    second.cancel();
  });

  it("a sync run's model tokens stream to the listener; the webhook still answers JSON", async () => {
    const credential = await openAICredential();
    const { id: flowId } = await saveAgentflowOf(
      [webhookStart({ webhookDefaultInput: "{{ $webhook.body.q }}" }), llm("llmAgentflow_0", credential)],
      [afEdge("startAgentflow_0", "llmAgentflow_0")],
    );
    const { stream } = await listen(flowId);
    const q = `listened ${uuid().slice(0, 8)}`;
    const answer = await (await hook(flowId, { body: { q } })).json<any>();
    expect(answer.text).toContain(q);
    const seen = after(await stream.until(finished(1)), 1);
    const tokens = seen.filter((f) => f.event === "token").map((f) => f.data);
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.join("")).toBe(answer.text);
    stream.cancel();
  });

  it("a streamed webhook run: the listener gets the frames its caller got", async () => {
    const flowId = await saveWebhookFlow({ webhookResponseMode: "stream" }, "streamed {{ $webhook.body.name }}");
    const { stream } = await listen(flowId);
    const res = await hook(flowId, { body: { name: "Cy" } });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const { frames: callerFrames } = await readStream(res);
    const seen = after(await stream.until(finished(1)), 1);
    expect(seen).toEqual(callerFrames);
    expect(states(seen)).toEqual(["INPROGRESS", "FINISHED"]);
    stream.cancel();
  });

  it("a stream-mode webhook whose flow answers JSON (post-processing): the listener gets its states, nodes and metadata, no raw tokens", async () => {
    const chatbotConfig = JSON.stringify({ postProcessing: { enabled: true, customFunction: "return $flow.rawOutput.toUpperCase();" } });
    const flowId = await saveWebhookFlow({ webhookResponseMode: "stream" }, "post {{ $webhook.body.name }}", { chatbotConfig });
    const { stream } = await listen(flowId);
    const res = await hook(flowId, { body: { name: "Ed" } });
    expect(res.headers.get("content-type")).toContain("application/json");
    const answer = await res.json<any>();
    expect(answer.text).toBe("POST ED");
    const seen = after(await stream.until(finished(1)), 1);
    expect(states(seen)).toEqual(["INPROGRESS", "FINISHED"]);
    const done = seen.filter((f) => f.event === "nextAgentFlow" && f.data.status === "FINISHED").map((f) => f.data.nodeId);
    expect(done).toEqual(["startAgentflow_0", "directReplyAgentflow_0"]);
    expect(seen.find((f) => f.event === "metadata")?.data).toMatchObject({ chatId: answer.chatId, executionId: answer.executionId });
    // Its raw answer is not streamed (post-processing replaces it); one run's worth: one end.
    expect(seen.filter((f) => f.event === "token")).toEqual([]);
    expect(seen.filter((f) => f.event === "end")).toHaveLength(1);
    stream.cancel();
  });

  it("an async webhook run: the listener gets its execution's frames as the Workflow runs it", async () => {
    const flowId = await saveWebhookFlow({ webhookResponseMode: "async", callbackUrl: "" }, "later {{ $webhook.body.name }}");
    const { stream } = await listen(flowId);
    const res = await hook(flowId, { body: { name: "Di" } });
    expect(res.status).toBe(202);
    const { executionId } = await res.json<any>();
    const seen = after(await stream.until(finished(1), 30_000), 1);
    expect(states(seen)).toContain("FINISHED");
    expect(seen.find((f) => f.event === "metadata")?.data).toMatchObject({ executionId });
    stream.cancel();
  });

  it("refusals: an unknown flow 404, a flow no webhook starts 400, an unknown or malformed listener, no token", async () => {
    await expectError(await call("POST", `/webhook-listener/${uuid()}/register`), 404);
    const { id: chatFlow } = await saveAgentflowOf(
      [start(), directReply("directReplyAgentflow_0", "hi")],
      [afEdge("startAgentflow_0", "directReplyAgentflow_0")],
    );
    expect((await expectError(await call("POST", `/webhook-listener/${chatFlow}/register`), 400)).message).toMatch(
      /not configured as a webhook trigger/,
    );
    const flowId = await saveWebhookFlow();
    await expectError(await call("GET", `/webhook-listener/${flowId}/stream/wh-listener-${uuid()}`), 404);
    await expectError(await call("GET", `/webhook-listener/${flowId}/stream/not-a-listener`), 400);
    await expectError(await call("POST", `/webhook-listener/${flowId}/register`, { token: null }), 401);
    // A key for another flow, or without update rights, cannot listen (nor open a listener's stream).
    const other = await saveWebhookFlow();
    const elsewhere = await json("POST", "/apikey", {
      body: { keyName: "listener elsewhere", permissions: ["agentflows:update", "chatflows:update"], chatflows: [other] },
    });
    await expectError(await call("POST", `/webhook-listener/${flowId}/register`, { token: elsewhere.apiKey }), 403);
    const viewer = await json("POST", "/apikey", { body: { keyName: "listener viewer", permissions: ["agentflows:view"] } });
    await expectError(await call("POST", `/webhook-listener/${flowId}/register`, { token: viewer.apiKey }), 403);
    const { listenerId: mine } = await json("POST", `/webhook-listener/${flowId}/register`);
    await expectError(await call("GET", `/webhook-listener/${flowId}/stream/${mine}`, { token: elsewhere.apiKey }), 403);
    await expectError(await call("GET", `/webhook-listener/${other}/stream/${mine}`), 404); // bound to its own flow
    await json("DELETE", `/webhook-listener/${flowId}/listener/${mine}`);
    // At most 20 live listeners a flow; removing one makes room.
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await json("POST", `/webhook-listener/${flowId}/register`)).listenerId);
    expect((await expectError(await call("POST", `/webhook-listener/${flowId}/register`), 429)).message).toMatch(/Too many listeners/);
    expect(await json("DELETE", `/webhook-listener/${flowId}/listener/${ids[0]}`)).toEqual({ ok: true });
    expect((await call("POST", `/webhook-listener/${flowId}/register`)).status).toBe(200);
    // A webhook with nobody listening runs as before.
    expect((await (await hook(flowId, { body: { name: "Ed" } })).json<any>()).text).toBe("got Ed");
  });
});
