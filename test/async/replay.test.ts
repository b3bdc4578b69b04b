// Issue 20: a node that finished is never run again after a restart. Cloudflare Workflows replays a
// restarted instance's code and answers each finished step from its stored result; here a stand-in
// for `step.do` keeps results by name the same way, the run is cut off at its record step (as an
// evicted isolate would be), and replayed: the model is not called again, the checkpoints already
// stored are not written again, and the run then records and ends FINISHED.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { WorkflowStep } from "cloudflare:workers";
import { execution } from "../../src/db/schema";
import { WorkflowSteps } from "../../src/detached/steps";
import type { Env } from "../../src/env";
import { runFlow } from "../../src/services/runs";
import { DETACHED_RUN } from "../../src/services/runs/triggers";
import { afEdge, llm, openAICredential, saveAgentflowOf, start } from "../agentflow-api/flows";
import { db, runtimeWith } from "../engine/helpers";
import { json } from "../helpers";
import { standinRequests } from "../security/helpers";

class Evicted extends Error {}

/** `step.do` as Workflows answers it: a finished step's stored result; `crashAt` stops the run at that step. */
function fakeStep(store: Map<string, unknown>, crashAt?: string): WorkflowStep {
  return {
    do: async (name: string, ...rest: unknown[]) => {
      const work = rest.at(-1) as () => Promise<unknown>;
      if (store.has(name)) return store.get(name);
      if (crashAt && name.endsWith(crashAt)) throw new Evicted(name);
      const value = JSON.parse(JSON.stringify(await work()));
      store.set(name, value);
      return value;
    },
  } as unknown as WorkflowStep;
}

describe("a restarted detached run replays its finished steps", () => {
  it("the model is called once; the run records after the restart and ends FINISHED", async () => {
    const marker = `replay-${crypto.randomUUID()}`;
    const cred = await openAICredential();
    const { id } = await saveAgentflowOf([start(), llm("llmAgentflow_0", cred)], [afEdge("startAgentflow_0", "llmAgentflow_0")]);
    const executionId = crypto.randomUUID();
    const now = new Date().toISOString();
    await db().insert(execution).values({
      id: executionId,
      agentflowId: id,
      sessionId: "s-replay",
      state: "INPROGRESS",
      executionData: "[]",
      detached: true,
      createdDate: now,
      updatedDate: now,
    });
    const deps = { db: db(), env: env as unknown as Env, runtime: runtimeWith(), waitUntil: () => undefined };
    const store = new Map<string, unknown>();
    const request = (step: WorkflowStep) => ({
      trigger: DETACHED_RUN,
      flowId: id,
      input: { question: marker, chatId: "s-replay" },
      delivery: "json" as const,
      executionId,
      steps: new WorkflowSteps(step, env.FILES, executionId, "0: ", { count: 0 }),
    });

    await expect(runFlow(deps, request(fakeStep(store, "record")))).rejects.toBeInstanceOf(Evicted);
    expect(await standinRequests(marker)).toHaveLength(1);
    const cut = await json("GET", `/executions/${executionId}`);
    expect(cut.state).toBe("INPROGRESS");
    expect([...store.keys()]).toEqual(["0: node startAgentflow_0 #1", "0: node llmAgentflow_0 #2"]);

    const replay = request(fakeStep(store));
    const delivered = await runFlow(deps, replay);
    expect(delivered.kind).toBe("json");
    expect(await standinRequests(marker)).toHaveLength(1); // the LLM node's step was answered from the store
    const done = await json("GET", `/executions/${executionId}`);
    expect(done.state).toBe("FINISHED");
    expect(done.result.text).toBe((delivered as { body: { text: string } }).body.text);
    expect(JSON.parse(done.executionData).map((e: any) => e.nodeId)).toEqual(["startAgentflow_0", "llmAgentflow_0"]);
    const messages = await json<any[]>("GET", `/chatmessage/${id}`);
    expect(messages.map((m) => m.role)).toEqual(["userMessage", "apiMessage"]);
  });

  it("a node's result over a step's 1 MiB limit is kept in R2 and read back on replay", async () => {
    const store = new Map<string, unknown>();
    const executionId = crypto.randomUUID();
    const steps = () => new WorkflowSteps(fakeStep(store), env.FILES, executionId, "0: ", { count: 0 });
    const big = "x".repeat(1_200_000);
    expect(await steps().do("big", async () => ({ big }))).toEqual({ big });
    const stored = store.get("0: big") as { value: { r2: string } };
    expect(JSON.stringify(stored).length).toBeLessThan(1000);
    expect(await (await env.FILES.get(stored.value.r2))!.text()).toBe(JSON.stringify({ big }));
    // Replayed: the same value, from R2, without running the work.
    expect(
      await steps().do("big", async () => {
        throw new Error("ran again");
      }),
    ).toEqual({ big });
  });

  it("a run that would pass Workflows' 1,024 steps ends with an error naming the limit", async () => {
    const steps = new WorkflowSteps(fakeStep(new Map()), env.FILES, crypto.randomUUID(), "0: ", { count: 1000 });
    await expect(steps.do("one more", async () => 1)).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("limit of 1024 steps"),
    });
  });
});
