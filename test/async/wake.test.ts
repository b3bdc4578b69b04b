// Issue 28: detached runs a restart left cut off are woken (services/executions/wake.ts) — by the Cron
// Trigger's sweep and by reads of the execution — once a minute at most, claimed by one conditional
// UPDATE; an instance the engine will never run again has its row settled instead. The engine is a
// stand-in here (what it answers is the test's choice), except where the real local one is named.
import { env } from "cloudflare:workers";
import { inArray } from "drizzle-orm";
import { afterAll, describe, expect, it, vi } from "vitest";
import { execution } from "../../src/db/schema";
import { workflowRuns } from "../../src/detached/runs-port";
import type { Env } from "../../src/env";
import { isDue, sweepDetached, wakeExecution } from "../../src/services/executions";
import type { DetachedRuns, InstanceStatus } from "../../src/services/detached-runs";
import { call, json, sleep } from "../helpers";
import { setVars, standinRequests } from "../security/helpers";
import { openAICredential, standinUrl } from "../agentflow-api/flows";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, db, flowDataOf, pointAtStandin } from "../engine/helpers";

vi.setConfig({ testTimeout: 30_000 });

const LONG_AGO = "2001-01-01T00:00:00.000Z";
const made: string[] = [];
afterAll(async () => {
  await db().delete(execution).where(inArray(execution.id, made));
});

/** A detached execution row, stalled since 2001 unless told otherwise. */
async function rowOf(values: Partial<typeof execution.$inferInsert> = {}): Promise<string> {
  const id = crypto.randomUUID();
  await db()
    .insert(execution)
    .values({
      id,
      agentflowId: `wake-${id}`,
      sessionId: "s-wake",
      state: "INPROGRESS",
      executionData: "[]",
      detached: true,
      createdDate: LONG_AGO,
      updatedDate: LONG_AGO,
      ...values,
    });
  made.push(id);
  return id;
}

const read = (id: string) =>
  db()
    .select()
    .from(execution)
    .where(inArray(execution.id, [id]))
    .get();

/** A stand-in engine: every instance has `status`; each wake is counted. */
function engine(status: InstanceStatus = "live", error?: string) {
  const woken: string[] = [];
  const runs: Pick<DetachedRuns, "inspect" | "wake"> = {
    inspect: async () => ({ status, ...(error ? { error } : {}) }),
    wake: async (id) => {
      await sleep(5);
      woken.push(id);
    },
  };
  return { runs, woken, times: (id: string) => woken.filter((w) => w === id).length };
}

async function saveChatflow(): Promise<string> {
  const cred = await openAICredential();
  const flowData = flowDataOf(llmChain as Fixture, (nodes) => {
    for (const node of nodes.values()) if (node.data.category === "Chat Models") pointAtStandin(node, cred);
  });
  return (await json("POST", "/chatflows", { body: { name: "wake", flowData } })).id;
}

const depsOf = (runs?: Pick<DetachedRuns, "inspect" | "wake">) => ({ db: db(), env: env as unknown as Env, detached: runs });

describe("the sweep", () => {
  it("two sweeps at once wake each stalled execution once; another within the minute wakes none again", async () => {
    const ids = [await rowOf(), await rowOf(), await rowOf({ state: "STOPPED" })];
    const fake = engine();
    const [a, b] = await Promise.all([sweepDetached(depsOf(fake.runs)), sweepDetached(depsOf(fake.runs))]);
    for (const id of ids) expect(fake.times(id)).toBe(1);
    expect(a.woken + b.woken).toBeGreaterThanOrEqual(ids.length);
    for (const id of ids) expect((await read(id))?.wokenAt).toBeTruthy();

    await sweepDetached(depsOf(fake.runs));
    for (const id of ids) expect(fake.times(id)).toBe(1);
    // A minute later (the claim's clock): due again.
    await sweepDetached(depsOf(fake.runs), Date.now() + 61_000);
    for (const id of ids) expect(fake.times(id)).toBe(2);
  });

  it("wakes a run only when it shows no progress, and a pause only past its human-input timeout", async () => {
    const now = Date.now();
    const iso = (ago: number) => new Date(now - ago).toISOString();
    const fresh = await rowOf({ updatedDate: iso(1000) });
    const pausedHourAgo = await rowOf({ state: "STOPPED", updatedDate: iso(3_600_000) });
    const finished = await rowOf({ state: "FINISHED" });
    const synchronous = await rowOf({ detached: false });
    const stalled = await rowOf({ updatedDate: iso(60_000) });
    const fake = engine();
    for (const id of [fresh, pausedHourAgo, finished, synchronous]) {
      expect(isDue((await read(id))!, env, now)).toBe(false);
      expect(await wakeExecution(depsOf(fake.runs), id, now)).toBe("skipped");
    }
    expect(isDue((await read(stalled))!, env, now)).toBe(true);
    expect(await wakeExecution(depsOf(fake.runs), stalled, now)).toBe("woken");
    expect(fake.woken).toEqual([stalled]);
    expect(await read(finished)).toMatchObject({ state: "FINISHED", wokenAt: null });
  });
});

describe("an instance the engine will not run again", () => {
  it("an INPROGRESS row whose instance errored is settled ERROR with the engine's message", async () => {
    const id = await rowOf();
    const fake = engine("errored", "Error: the isolate ran out of memory");
    expect(await wakeExecution(depsOf(fake.runs), id)).toBe("settled");
    expect(fake.woken).toEqual([]);
    expect(await read(id)).toMatchObject({
      state: "ERROR",
      error: "The run's Workflow instance failed: Error: the isolate ran out of memory",
    });
  });

  it("a terminated, completed or missing one: ERROR for a run, TIMEOUT for a pause past its timeout", async () => {
    const run = await rowOf();
    const done = await rowOf();
    const pause = await rowOf({ state: "STOPPED" });
    await wakeExecution(depsOf(engine("terminated").runs), run);
    await wakeExecution(depsOf(engine("complete").runs), done);
    await wakeExecution(depsOf(engine("gone").runs), pause);
    expect(await read(run)).toMatchObject({ state: "ERROR", error: "The run's Workflow instance was terminated" });
    expect(await read(done)).toMatchObject({ state: "ERROR", error: expect.stringContaining("ended without storing") });
    expect(await read(pause)).toMatchObject({ state: "TIMEOUT", error: "The run's Workflow instance is gone" });
  });

  it("the local engine: a terminated instance whose row says INPROGRESS is settled ERROR", async () => {
    const id = await rowOf();
    // An instance of this id whose run (on another, absent, execution) waits on a model that never answers; then terminated.
    const marker = `wake-terminated-${crypto.randomUUID()}`;
    const params = { executionId: crypto.randomUUID(), flowId: await saveChatflow(), input: { question: `${marker} [hang]`, chatId: "c" } };
    const instance = await env.RUNS.create({ id, params });
    for (let i = 0; i < 200 && !(await standinRequests(marker)).length; i++) await sleep(50);
    await instance.terminate();
    expect(await workflowRuns(env)!.inspect(id)).toEqual({ status: "terminated" });
    expect(await wakeExecution(depsOf(workflowRuns(env)), id)).toBe("settled");
    expect(await read(id)).toMatchObject({ state: "ERROR", error: "The run's Workflow instance was terminated" });
  });
});

describe("reads wake", () => {
  it("GET /executions/{id} of a stalled run answers at once and wakes it in the background (here: no instance → ERROR)", async () => {
    const id = await rowOf();
    const shown = await json("GET", `/executions/${id}`);
    expect(shown.state).toBe("INPROGRESS");
    expect(shown).not.toHaveProperty("wokenAt");
    let row = await read(id);
    for (let i = 0; i < 100 && row?.state === "INPROGRESS"; i++) {
      await sleep(50);
      row = await read(id);
    }
    expect(row).toMatchObject({ state: "ERROR", error: "The run's Workflow instance is gone" });
  });

  it("GET /executions/{id}/events of a stalled run wakes it too", async () => {
    const id = await rowOf();
    const res = await call("GET", `/executions/${id}/events`);
    expect(res.status).toBe(200);
    await res.body?.cancel();
    let row = await read(id);
    for (let i = 0; i < 100 && row?.state === "INPROGRESS"; i++) {
      await sleep(50);
      row = await read(id);
    }
    expect(row?.state).toBe("ERROR");
  });
});

describe("a wake of a finished run", () => {
  it("is harmless: the model is not asked again, nothing is stored or sent twice", async () => {
    const restore = setVars({ OUTBOUND_ALLOW: new URL(standinUrl()).host });
    try {
      const flow = { id: await saveChatflow() };
      const marker = `wake-finished-${crypto.randomUUID()}`;
      const callbackUrl = `${standinUrl()}/callback/${marker}`;
      const accepted = await json("POST", `/prediction/${flow.id}`, { body: { question: marker, async: true, callbackUrl } }, 202);
      let row = await json("GET", `/executions/${accepted.executionId}`);
      for (let i = 0; i < 400 && row.state === "INPROGRESS"; i++) {
        await sleep(50);
        row = await json("GET", `/executions/${accepted.executionId}`);
      }
      expect(row.state).toBe("FINISHED");
      await sleep(300); // the callback step
      const before = {
        asked: (await standinRequests(marker)).length,
        frames: await (await call("GET", `/executions/${accepted.executionId}/events`)).text(),
      };
      const runs = workflowRuns(env)!;
      expect(await runs.inspect(accepted.executionId)).toEqual({ status: "complete" });
      await runs.wake(accepted.executionId);
      await sleep(500);
      expect((await standinRequests(marker)).length).toBe(before.asked);
      expect(await (await call("GET", `/executions/${accepted.executionId}/events`)).text()).toBe(before.frames);
      expect(await json("GET", `/executions/${accepted.executionId}`)).toMatchObject({ state: "FINISHED", result: row.result });
      const messages = await json<any[]>("GET", `/chatmessage/${flow.id}?chatId=${accepted.chatId}`);
      expect(messages).toHaveLength(2);
      expect((await standinRequests(marker)).filter((r: any) => String(r.path).startsWith("/callback"))).toHaveLength(1);
    } finally {
      restore();
    }
  });
});
