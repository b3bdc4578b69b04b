// A detached run's time limit is ASYNC_RUN_TIMEOUT_MS, not a request's RUN_TIMEOUT_MS: the Workflow
// hands it to the run door (RunDeps.timeLimitMs) and leaves the env as it is. Under the same vars a
// synchronous prediction is held to RUN_TIMEOUT_MS, its async twin to ASYNC_RUN_TIMEOUT_MS.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, flowDataOf, pointAtStandin } from "../engine/helpers";
import { expectError, call, json, sleep } from "../helpers";
import { openAICredential, standinUrl } from "../agentflow-api/flows";
import { setVars } from "../security/helpers";

vi.setConfig({ testTimeout: 30_000 });
let restore: () => void;
beforeAll(() => {
  restore = setVars({ OUTBOUND_ALLOW: new URL(standinUrl()).host });
});
afterAll(() => restore());

async function saveChatflow(): Promise<string> {
  const cred = await openAICredential();
  const flowData = flowDataOf(llmChain as Fixture, (nodes) => {
    for (const node of nodes.values()) if (node.data.category === "Chat Models") pointAtStandin(node, cred);
  });
  return (await json("POST", "/chatflows", { body: { name: "time limit", flowData } })).id;
}

async function settled(executionId: string, ms = 20_000): Promise<any> {
  const until = Date.now() + ms;
  for (;;) {
    const row = await json("GET", `/executions/${executionId}`);
    if (row.state !== "INPROGRESS") return row;
    if (Date.now() > until) throw new Error(`execution ${executionId} still INPROGRESS after ${ms} ms`);
    await sleep(50);
  }
}

describe("a detached run's time limit", () => {
  it("is ASYNC_RUN_TIMEOUT_MS: a model that never answers ends the run ERROR naming it, whatever RUN_TIMEOUT_MS says", async () => {
    const back = setVars({ ASYNC_RUN_TIMEOUT_MS: "1500", RUN_TIMEOUT_MS: "600000" });
    try {
      const id = await saveChatflow();
      const accepted = await json("POST", `/prediction/${id}`, { body: { question: `[hang] ${crypto.randomUUID()}`, async: true } }, 202);
      const row = await settled(accepted.executionId);
      expect(row.state).toBe("ERROR");
      expect(row.error).toBe("The run did not finish within its time limit (1.5 s)");
    } finally {
      back();
    }
  });

  it("is not RUN_TIMEOUT_MS: a model slower than it fails a synchronous prediction (504) and finishes an async one", async () => {
    const back = setVars({ RUN_TIMEOUT_MS: "400" });
    try {
      const id = await saveChatflow();
      const sync = await call("POST", `/prediction/${id}`, { body: { question: `[slow] ${crypto.randomUUID()}` } });
      expect((await expectError(sync, 504)).message).toBe("The run did not finish within its time limit (0.4 s)");
      const accepted = await json("POST", `/prediction/${id}`, { body: { question: `[slow] ${crypto.randomUUID()}`, async: true } }, 202);
      const row = await settled(accepted.executionId);
      expect(row.state).toBe("FINISHED");
      expect(row.result.text.length).toBeGreaterThan(0);
    } finally {
      back();
    }
  });
});
