// Stopping an agentflow run: PUT /chatmessage/abort (the widget's stop button) or the client going
// away. The execution ends TERMINATED with what it had done; no messages are stored.
import { describe, expect, it } from "vitest";
import { call, expectError, json } from "../helpers";
import { setVars } from "../security/helpers";
import { afEdge, executionsOf, llm, messagesOf, openAICredential, saveAgentflowOf, start } from "./flows";

async function slowFlow() {
  const cred = await openAICredential();
  return (await saveAgentflowOf([start(), llm("llmAgentflow_0", cred)], [afEdge("startAgentflow_0", "llmAgentflow_0")])).id;
}

/** Reads frames until `until` says stop; answers what was read and the reader (to go on or cancel). */
async function readUntil(res: Response, until: (events: string[]) => boolean) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let raw = "";
  const events = () => [...raw.matchAll(/data:\{"event":"(\w+)"/g)].map((m) => m[1]);
  while (!until(events())) {
    const { value, done } = await reader.read();
    if (done) break;
    raw += decoder.decode(value, { stream: true });
  }
  return {
    reader,
    events,
    more: async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return raw;
        raw += decoder.decode(value, { stream: true });
      }
    },
  };
}

async function waitFor<T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms = 5000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await probe();
    if (ok(v) || Date.now() - t0 > ms) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("stopping an agentflow run", () => {
  it("PUT /chatmessage/abort mid-answer: TERMINATED events, error and end; the execution TERMINATED; no messages", async () => {
    const id = await slowFlow();
    const res = await call("POST", `/prediction/${id}`, {
      body: { question: "[slow] one two three four five six", chatId: "c-abort", streaming: true },
    });
    const stream = await readUntil(res, (e) => e.includes("token"));
    expect(await json("PUT", `/chatmessage/abort/${id}/c-abort`)).toEqual({ aborted: true });
    const raw = await stream.more();
    const events = [...raw.matchAll(/data:(\{.*\})\n/g)].map((m) => JSON.parse(m[1]));
    expect(events.filter((f) => f.event === "agentFlowEvent").map((f) => f.data)).toEqual(["INPROGRESS", "TERMINATED"]);
    expect(events.slice(-2).map((f) => f.event)).toEqual(["error", "end"]);
    const [execution] = await executionsOf(id);
    expect(execution.state).toBe("TERMINATED");
    expect(JSON.parse(execution.executionData).at(-1)).toMatchObject({ nodeId: "llmAgentflow_0", status: "TERMINATED" });
    expect(await messagesOf(id)).toEqual([]);
  });

  it("a client that goes away stops the run: TERMINATED, nothing stored", async () => {
    const id = await slowFlow();
    const res = await call("POST", `/prediction/${id}`, { body: { question: "[slow] a b c d e f g h i j", streaming: true } });
    const stream = await readUntil(res, (e) => e.includes("token"));
    await stream.reader.cancel();
    const [execution] = await waitFor(
      () => executionsOf(id),
      (rows) => rows[0]?.state !== "INPROGRESS",
    );
    expect(execution.state).toBe("TERMINATED");
    expect(await messagesOf(id)).toEqual([]);
  });

  it("past the run's time limit (RUN_TIMEOUT_MS): 504, the execution TIMEOUT, nothing stored", async () => {
    const id = await slowFlow();
    const restore = setVars({ RUN_TIMEOUT_MS: "1500" });
    try {
      const started = Date.now();
      const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "[trickle] slowly" } }), 504);
      expect(err.message).toBe("The run did not finish within its time limit (1.5 s)");
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      restore();
    }
    const [execution] = await executionsOf(id);
    expect(execution.state).toBe("TIMEOUT");
    expect(await messagesOf(id)).toEqual([]);
  });
});
