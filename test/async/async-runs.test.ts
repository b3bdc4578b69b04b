import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, flowDataOf, pointAtStandin } from "../engine/helpers";
import { call, expectError, json, sleep } from "../helpers";
import { approvalFlow, llm, afEdge, openAICredential, saveAgentflowOf, standinUrl, start } from "../agentflow-api/flows";
import { setVars } from "../security/helpers";

const SECRET = "test-callback-secret";
// A run goes on beside the test in its Workflow: each test waits for it, up to 30 s on a busy machine.
vi.setConfig({ testTimeout: 30_000 });
let restore: () => void;
beforeAll(() => {
  restore = setVars({ CALLBACK_SECRET: SECRET, OUTBOUND_ALLOW: new URL(standinUrl()).host });
});
afterAll(() => restore());

async function saveChatflow(): Promise<string> {
  const cred = await openAICredential();
  const flowData = flowDataOf(llmChain as Fixture, (nodes) => {
    for (const node of nodes.values()) if (node.data.category === "Chat Models") pointAtStandin(node, cred);
  });
  return (await json("POST", "/chatflows", { body: { name: "flow", flowData } })).id;
}

/** Polls the execution until its state leaves INPROGRESS (the Workflow runs beside the test). */
async function settled(executionId: string, ms = 20_000): Promise<any> {
  const until = Date.now() + ms;
  for (;;) {
    const row = await json("GET", `/executions/${executionId}`);
    if (row.state !== "INPROGRESS") return row;
    if (Date.now() > until) throw new Error(`execution ${executionId} still INPROGRESS after ${ms} ms`);
    await sleep(50);
  }
}

/** The SSE frames of a response, with their ids. */
async function framesOf(res: Response): Promise<{ id: number; event: string; data: any }[]> {
  const text = await res.text();
  return text
    .split("\n\n")
    .filter((b) => b.includes("data:"))
    .map((block) => {
      const id = Number(/^id:(\d+)$/m.exec(block)?.[1]);
      const data = JSON.parse(/^data:(.*)$/m.exec(block)![1]);
      return { id, event: data.event, data: data.data };
    });
}

async function hmacHex(body: string, secret: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return [...new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

const callbacksFor = async (executionId: string) =>
  ((await (await fetch(`${standinUrl()}/requests?contains=${executionId}`)).json()) as any[]).filter((r) => r.path.startsWith("/callback"));

describe("async: true on a chatflow", () => {
  it("answers 202 at once; the execution ends FINISHED with the answer a synchronous prediction gives", async () => {
    const id = await saveChatflow();
    const res = await call("POST", `/prediction/${id}`, { body: { question: "hello async", async: true } });
    expect(res.status).toBe(202);
    const accepted = await res.json<any>();
    expect(accepted).toEqual({
      executionId: expect.any(String),
      chatId: expect.any(String),
      sessionId: expect.any(String),
      status: "INPROGRESS",
    });

    const row = await settled(accepted.executionId);
    expect(row).toMatchObject({ state: "FINISHED", agentflowId: id, sessionId: accepted.sessionId });
    expect(row.result).toMatchObject({ chatId: accepted.chatId, question: "hello async", text: expect.any(String) });
    expect(row.result.text.length).toBeGreaterThan(0);
    expect(row).not.toHaveProperty("error");
    // The exchange is stored as a prediction's is.
    const messages = await json<any[]>("GET", `/chatmessage/${id}?chatId=${accepted.chatId}`);
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ["userMessage", "hello async"],
      ["apiMessage", row.result.text],
    ]);
  });

  it("the event log replays the run's frames (tokens, metadata, end) and honours Last-Event-ID", async () => {
    const id = await saveChatflow();
    const accepted = await json("POST", `/prediction/${id}`, { body: { question: "frames please", async: true } }, 202);
    const row = await settled(accepted.executionId);
    const res = await call("GET", `/executions/${accepted.executionId}/events`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const frames = await framesOf(res);
    const events = frames.map((f) => f.event);
    expect(events.at(-1)).toBe("end");
    expect(events).toContain("metadata");
    const tokens = frames
      .filter((f) => f.event === "token")
      .map((f) => f.data)
      .join("");
    expect(tokens).toBe(row.result.text);
    expect(frames.map((f) => f.id)).toEqual(frames.map((_, i) => frames[0].id + i));
    // After the third frame: the rest only.
    const later = await framesOf(
      await call("GET", `/executions/${accepted.executionId}/events`, { headers: { "Last-Event-ID": String(frames[2].id) } }),
    );
    expect(later.map((f) => f.id)).toEqual(frames.slice(3).map((f) => f.id));
  });

  it("calls the callbackUrl back with a signed body", async () => {
    const id = await saveChatflow();
    const callbackUrl = `${standinUrl()}/callback/done`;
    const accepted = await json("POST", `/prediction/${id}`, { body: { question: "call me back", async: true, callbackUrl } }, 202);
    await settled(accepted.executionId);
    let delivered: any[] = [];
    for (let i = 0; i < 400 && !delivered.length; i++) {
      delivered = await callbacksFor(accepted.executionId);
      if (!delivered.length) await sleep(50);
    }
    expect(delivered).toHaveLength(1);
    const [cb] = delivered;
    expect(cb.body).toMatchObject({
      status: "SUCCESS",
      executionId: accepted.executionId,
      chatId: accepted.chatId,
      data: { text: expect.any(String) },
    });
    const raw = JSON.stringify(cb.body);
    expect(cb.headers["x-edgeflow-signature"]).toBe(`sha256=${await hmacHex(raw, SECRET)}`);
  });

  it("refuses async with streaming, a callbackUrl without async, and a callbackUrl the outbound policy refuses", async () => {
    const id = await saveChatflow();
    await expectError(await call("POST", `/prediction/${id}`, { body: { question: "x", async: true, streaming: true } }), 400);
    await expectError(await call("POST", `/prediction/${id}`, { body: { question: "x", callbackUrl: `${standinUrl()}/callback` } }), 400);
    const refused = await expectError(
      await call("POST", `/prediction/${id}`, { body: { question: "x", async: true, callbackUrl: "http://169.254.169.254/latest" } }),
      400,
    );
    expect(refused.message).toMatch(/^callbackUrl: /);
  });

  it("checks the caller before accepting: a missing flow is 404, a private flow without a key 401, nothing is started", async () => {
    await expectError(await call("POST", `/prediction/${crypto.randomUUID()}`, { body: { question: "x", async: true } }), 404);
    const id = await saveChatflow();
    await expectError(await call("POST", `/prediction/${id}`, { token: null, body: { question: "x", async: true } }), 401);
    expect((await json("GET", `/executions?agentflowId=${id}`)).data).toEqual([]);
  });
});

describe("async: true on an agentflow", () => {
  it("runs each node as a step and ends FINISHED with the agentflow's answer", async () => {
    const cred = await openAICredential();
    const { id } = await saveAgentflowOf([start(), llm("llmAgentflow_0", cred)], [afEdge("startAgentflow_0", "llmAgentflow_0")]);
    const accepted = await json("POST", `/prediction/${id}`, { body: { question: "agent async", async: true } }, 202);
    const row = await settled(accepted.executionId);
    expect(row.state).toBe("FINISHED");
    expect(row.result).toMatchObject({ executionId: accepted.executionId, chatId: accepted.chatId, text: expect.any(String) });
    expect(JSON.parse(row.executionData).map((e: any) => [e.nodeId, e.status])).toEqual([
      ["startAgentflow_0", "FINISHED"],
      ["llmAgentflow_0", "FINISHED"],
    ]);
    const frames = await framesOf(await call("GET", `/executions/${accepted.executionId}/events`));
    // The frames a streamed prediction sends, from the Start node's INPROGRESS to end.
    expect(frames[0]).toMatchObject({ event: "agentFlowEvent", data: "INPROGRESS" });
    expect(frames.filter((f) => f.event === "nextAgentFlow").map((f) => [f.data.nodeId, f.data.status])).toEqual([
      ["startAgentflow_0", "INPROGRESS"],
      ["startAgentflow_0", "FINISHED"],
      ["llmAgentflow_0", "INPROGRESS"],
      ["llmAgentflow_0", "FINISHED"],
    ]);
    expect(frames.at(-1)!.event).toBe("end");
  });

  it("with post-processing: the event log has the run's states and nodes but not its raw tokens; the row has the processed answer", async () => {
    const cred = await openAICredential();
    const chatbotConfig = JSON.stringify({ postProcessing: { enabled: true, customFunction: "return 'PP:' + $flow.rawOutput;" } });
    const { id } = await saveAgentflowOf([start(), llm("llmAgentflow_0", cred)], [afEdge("startAgentflow_0", "llmAgentflow_0")], {
      chatbotConfig,
    });
    const accepted = await json("POST", `/prediction/${id}`, { body: { question: "processed async", async: true } }, 202);
    const row = await settled(accepted.executionId);
    expect(row.state).toBe("FINISHED");
    expect(row.result.text).toMatch(/^PP:/);
    const frames = await framesOf(await call("GET", `/executions/${accepted.executionId}/events`));
    expect(frames.filter((f) => f.event === "agentFlowEvent").map((f) => f.data)).toEqual(["INPROGRESS", "FINISHED"]);
    expect(frames.filter((f) => f.event === "nextAgentFlow" && f.data.status === "FINISHED").map((f) => f.data.nodeId)).toEqual([
      "startAgentflow_0",
      "llmAgentflow_0",
    ]);
    expect(frames.filter((f) => f.event === "token")).toEqual([]);
    expect(frames.at(-1)!.event).toBe("end");
  });

  it("pauses for human input (STOPPED, callback STOPPED), then an async resume runs the rest in the same instance", async () => {
    const flow = approvalFlow("Ship it?");
    const { id } = await saveAgentflowOf(flow.nodes, flow.edges);
    const callbackUrl = `${standinUrl()}/callback/hitl`;
    const accepted = await json("POST", `/prediction/${id}`, { body: { question: "draft", async: true, callbackUrl } }, 202);
    const paused = await settled(accepted.executionId);
    expect(paused.state).toBe("STOPPED");
    expect(paused.result).toMatchObject({ action: expect.any(Object), executionId: accepted.executionId });

    const resumed = await json(
      "POST",
      `/prediction/${id}`,
      {
        body: { question: "Proceed", async: true, humanInput: { type: "proceed", executionId: accepted.executionId } },
      },
      202,
    );
    expect(resumed).toMatchObject({ executionId: accepted.executionId, status: "INPROGRESS" });
    // A second resume of the same pause is a 409 (the first claimed it).
    await expectError(
      await call("POST", `/prediction/${id}`, {
        body: { question: "Proceed", async: true, humanInput: { type: "proceed", executionId: accepted.executionId } },
      }),
      409,
    );
    const done = await settled(accepted.executionId);
    expect(done.state).toBe("FINISHED");
    expect(done.result.text).toBe("approved");
    let delivered: any[] = [];
    for (let i = 0; i < 400 && delivered.length < 2; i++) {
      delivered = await callbacksFor(accepted.executionId);
      if (delivered.length < 2) await sleep(50);
    }
    expect(delivered.map((d) => d.body.status)).toEqual(["STOPPED", "SUCCESS"]);
  });
});

describe("a paused async run resumed without async", () => {
  it("the request waits for the answer as today; the run's Workflow sees it ended, calls back and closes the event log", async () => {
    const flow = approvalFlow("Go?");
    const { id } = await saveAgentflowOf(flow.nodes, flow.edges);
    const callbackUrl = `${standinUrl()}/callback/sync-resume`;
    const accepted = await json("POST", `/prediction/${id}`, { body: { question: "draft", async: true, callbackUrl } }, 202);
    expect((await settled(accepted.executionId)).state).toBe("STOPPED");
    const answer = await json("POST", `/prediction/${id}`, {
      body: { question: "Reject", humanInput: { type: "reject", executionId: accepted.executionId } },
    });
    expect(answer.text).toBe("rejected");
    let delivered: any[] = [];
    for (let i = 0; i < 400 && delivered.length < 2; i++) {
      delivered = await callbacksFor(accepted.executionId);
      if (delivered.length < 2) await sleep(50);
    }
    expect(delivered.map((d) => d.body.status)).toEqual(["STOPPED", "SUCCESS"]);
    const frames = await framesOf(await call("GET", `/executions/${accepted.executionId}/events`));
    expect(frames.at(-1)!.event).toBe("end");
  });

  it("an async resume of a run that was not started async is a 400; the events of a synchronous run are a 404", async () => {
    const flow = approvalFlow("Go?");
    const { id } = await saveAgentflowOf(flow.nodes, flow.edges);
    const paused = await json("POST", `/prediction/${id}`, { body: { question: "draft" } });
    const refused = await expectError(
      await call("POST", `/prediction/${id}`, {
        body: { question: "Proceed", async: true, humanInput: { type: "proceed", executionId: paused.executionId } },
      }),
      400,
    );
    expect(refused.message).toContain("not started with async: true");
    await expectError(await call("GET", `/executions/${paused.executionId}/events`), 404);
  });
});

describe("durability of the edges", () => {
  it("a callback that fails is delivered again (the step's retries)", async () => {
    const id = await saveChatflow();
    const callbackUrl = `${standinUrl()}/callback/flaky?fail=1`;
    const accepted = await json("POST", `/prediction/${id}`, { body: { question: "retry the callback", async: true, callbackUrl } }, 202);
    await settled(accepted.executionId);
    let delivered: any[] = [];
    for (let i = 0; i < 400 && delivered.length < 2; i++) {
      delivered = await callbacksFor(accepted.executionId);
      if (delivered.length < 2) await sleep(50);
    }
    expect(delivered).toHaveLength(2);
    expect(delivered[0].body).toEqual(delivered[1].body);
    expect(delivered[1].body.status).toBe("SUCCESS");
  });

  it("a pause nobody answers within HUMAN_INPUT_TIMEOUT_MS ends TIMEOUT, with the reason", async () => {
    const restoreTimeout = setVars({ HUMAN_INPUT_TIMEOUT_MS: "300" });
    try {
      const flow = approvalFlow("Anyone?");
      const { id } = await saveAgentflowOf(flow.nodes, flow.edges);
      const accepted = await json("POST", `/prediction/${id}`, { body: { question: "draft", async: true } }, 202);
      expect((await settled(accepted.executionId)).state).toBe("STOPPED");
      let row: any;
      for (let i = 0; i < 400; i++) {
        row = await json("GET", `/executions/${accepted.executionId}`);
        if (row.state !== "STOPPED") break;
        await sleep(50);
      }
      expect(row.state).toBe("TIMEOUT");
      expect(row.error).toMatch(/HUMAN_INPUT_TIMEOUT_MS/);
      const frames = await framesOf(await call("GET", `/executions/${accepted.executionId}/events`));
      expect(frames.at(-1)!.event).toBe("end");
    } finally {
      restoreTimeout();
    }
  });
});
