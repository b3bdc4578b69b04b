// How a run is written into its execution row, against real D1: checkpoints (serialised, newest
// wins), the final state and messages in one guarded batch, the lease, and claiming a pause.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { ApiError } from "../../src/errors";
import {
  ExecutionCheckpointer,
  MAX_EXECUTION_DATA_BYTES,
  claimForResume,
  findResumeTarget,
  resumePoint,
} from "../../src/services/executions";
import { exchangeStatements } from "../../src/services/runs/agentflow-messages";
import { seedExecution } from "./seed";

const db = createDb(env.DB);
const deps = { db, env };
const rowOf = (id: string) => env.DB.prepare("SELECT * FROM execution WHERE id = ?").bind(id).first<any>();
const messagesOf = (executionId: string) =>
  env.DB.prepare("SELECT role, content, action, executionId FROM chat_message WHERE executionId = ? ORDER BY role DESC")
    .bind(executionId)
    .all<any>()
    .then((r) => r.results);
const entry = (nodeId: string, status = "FINISHED") => ({
  nodeId,
  nodeLabel: nodeId,
  data: { id: nodeId, name: "x" },
  previousNodeIds: [],
  status,
});
const recorder = (agentflowId = crypto.randomUUID()) =>
  new ExecutionCheckpointer(db, { id: crypto.randomUUID(), agentflowId, sessionId: "s-1" });

function exchange(r: ExecutionCheckpointer, extra: Record<string, unknown> = {}) {
  return {
    chatflowid: r.run.agentflowId,
    chatType: "EXTERNAL" as const,
    chatId: "s-1",
    sessionId: "s-1",
    executionId: r.run.id,
    userContent: "hi",
    startedAt: new Date().toISOString(),
    answer: "hello",
    resumed: false,
    ...extra,
  };
}

describe("checkpoints", () => {
  it("the first inserts the row INPROGRESS, later ones rewrite it; concurrent ones end with the newest", async () => {
    const r = recorder();
    expect(await rowOf(r.run.id)).toBeNull();
    await r.checkpoint([entry("start")], "INPROGRESS");
    await r.settled();
    const first = await rowOf(r.run.id);
    expect(first).toMatchObject({ state: "INPROGRESS", sessionId: "s-1", agentflowId: r.run.agentflowId });
    expect(JSON.parse(first.executionData)).toEqual([entry("start")]);

    // Two branches finishing together: three calls without awaiting in between.
    const data: ReturnType<typeof entry>[] = [entry("start")];
    const calls = ["a", "b", "c"].map((id) => {
      data.push(entry(id));
      return r.checkpoint([...data], "INPROGRESS");
    });
    await Promise.all(calls);
    await r.settled();
    expect(JSON.parse((await rowOf(r.run.id)).executionData).map((e: any) => e.nodeId)).toEqual(["start", "a", "b", "c"]);
  });

  it("ERROR is written at once; FINISHED waits for the batch that stores the messages", async () => {
    const failed = recorder();
    await failed.checkpoint([entry("start"), entry("llm", "ERROR")], "ERROR");
    await failed.settled();
    expect((await rowOf(failed.run.id)).state).toBe("ERROR");

    const ok = recorder();
    await ok.checkpoint([entry("start")], "INPROGRESS");
    await ok.checkpoint([entry("start"), entry("llm")], "FINISHED");
    await ok.settled();
    const held = await rowOf(ok.run.id);
    expect(held.state).toBe("INPROGRESS");
    expect(JSON.parse(held.executionData)).toEqual([entry("start")]);
    const { statement, guard } = ok.finish([entry("start"), entry("llm")], "FINISHED", undefined);
    const messageId = crypto.randomUUID();
    const [written] = await db.batch([statement, ...exchangeStatements(db, exchange(ok), messageId, guard)]);
    await ok.confirm(written as unknown[]);
    expect((await rowOf(ok.run.id)).state).toBe("FINISHED");
    expect(await messagesOf(ok.run.id)).toEqual([
      { role: "userMessage", content: "hi", action: null, executionId: ok.run.id },
      { role: "apiMessage", content: "hello", action: null, executionId: ok.run.id },
    ]);
  });

  it("STOPPED stores the action on the row and the API message, with stoppedDate", async () => {
    const r = recorder();
    await r.checkpoint([entry("start")], "INPROGRESS");
    await r.settled();
    const action = {
      id: "a1",
      mapping: { approve: "Proceed", reject: "Reject" },
      elements: [],
      data: { nodeId: "hi", nodeLabel: "HI", input: {} },
    };
    const { statement, guard } = r.finish([entry("start"), entry("hi", "STOPPED")], "STOPPED", action);
    const [written] = await db.batch([statement, ...exchangeStatements(db, exchange(r, { action }), crypto.randomUUID(), guard)]);
    await r.confirm(written as unknown[]);
    const row = await rowOf(r.run.id);
    expect(row).toMatchObject({ state: "STOPPED", action: JSON.stringify(action) });
    expect(row.stoppedDate).toBe(row.updatedDate);
    expect((await messagesOf(r.run.id))[1].action).toBe(JSON.stringify(action));
  });

  it("a run whose row was timed out meanwhile stores no messages and learns it lost the row (409)", async () => {
    const r = recorder();
    await r.checkpoint([entry("start")], "INPROGRESS");
    await r.settled();
    await env.DB.prepare("UPDATE execution SET state = 'TIMEOUT' WHERE id = ?").bind(r.run.id).run();

    // The write goes out beside the next node: its failure surfaces at the next checkpoint and in settled().
    await r.checkpoint([entry("start"), entry("llm")], "INPROGRESS");
    await expect(r.settled()).rejects.toMatchObject({ status: 409 });
    await expect(r.checkpoint([entry("start"), entry("llm"), entry("next")], "INPROGRESS")).rejects.toMatchObject({ status: 409 });
    expect(r.lost).toContain("TIMEOUT");
    const { statement, guard } = r.finish([entry("start"), entry("llm")], "FINISHED", undefined);
    const [written] = await db.batch([statement, ...exchangeStatements(db, exchange(r), crypto.randomUUID(), guard)]);
    await expect(r.confirm(written as unknown[])).rejects.toBeInstanceOf(ApiError);
    expect(await messagesOf(r.run.id)).toEqual([]);
    const row = await rowOf(r.run.id);
    expect(row.state).toBe("TIMEOUT");
    expect(JSON.parse(row.executionData)).toEqual([entry("start")]);
  });

  it("data over the row limit: 413, and the row is ERROR with the data that fit", async () => {
    const r = recorder();
    await r.checkpoint([entry("start")], "INPROGRESS");
    const huge = { ...entry("llm"), data: { id: "llm", name: "x", output: { content: "x".repeat(MAX_EXECUTION_DATA_BYTES) } } };
    await r.checkpoint([entry("start"), huge], "INPROGRESS");
    await expect(r.settled()).rejects.toMatchObject({ status: 413 });
    const row = await rowOf(r.run.id);
    expect(row.state).toBe("ERROR");
    expect(JSON.parse(row.executionData)).toEqual([entry("start")]);
  });

  it("keepAlive renews the lease while a node runs, and reports a row that is gone", async () => {
    const r = recorder();
    await r.checkpoint([entry("start")], "INPROGRESS");
    await r.settled();
    const before = (await rowOf(r.run.id)).updatedDate;
    let lostReason = "";
    const stop = r.keepAlive({ ...env, EXECUTION_LEASE_SECONDS: "1" }, (reason) => (lostReason = reason));
    try {
      await new Promise((res) => setTimeout(res, 700));
      expect((await rowOf(r.run.id)).updatedDate > before).toBe(true);
      await env.DB.prepare("DELETE FROM execution WHERE id = ?").bind(r.run.id).run();
      await new Promise((res) => setTimeout(res, 700));
      expect(lostReason).toContain("deleted");
    } finally {
      stop();
    }
  });
});

describe("resuming", () => {
  it("two concurrent claims of one pause: exactly one wins, the other is 409; a release gives the pause back", async () => {
    const flow = crypto.randomUUID();
    const data = [entry("start"), entry("hi", "STOPPED")];
    const id = await seedExecution({ agentflowId: flow, sessionId: "s-9", state: "STOPPED", executionData: data });
    const [a, b] = await Promise.all([findResumeTarget(deps, flow, "s-9"), findResumeTarget(deps, flow, "s-9")]);
    expect(a.row.id).toBe(id);
    const results = await Promise.allSettled([claimForResume(deps, a), claimForResume(deps, b)]);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r) => r.status === "rejected");
    expect(won).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toMatchObject({ status: 409 });
    expect((await rowOf(id)).state).toBe("INPROGRESS");

    await (won[0] as PromiseFulfilledResult<{ release: () => Promise<void> }>).value.release();
    expect((await rowOf(id)).state).toBe("STOPPED");
  });

  it("finds the newest paused run of the session, not merely the newest run; 404 when nothing is paused; 409 for a named run that is not", async () => {
    const flow = crypto.randomUUID();
    const paused = await seedExecution({
      agentflowId: flow,
      sessionId: "s-2",
      state: "STOPPED",
      executionData: [entry("hi", "STOPPED")],
      createdDate: "2026-05-01T00:00:00.000Z",
    });
    const finished = await seedExecution({
      agentflowId: flow,
      sessionId: "s-2",
      state: "FINISHED",
      createdDate: "2026-05-02T00:00:00.000Z",
    });
    expect((await findResumeTarget(deps, flow, "s-2")).row.id).toBe(paused);
    await expect(findResumeTarget(deps, flow, "s-other")).rejects.toMatchObject({ status: 404 });
    await expect(findResumeTarget(deps, flow, undefined, finished)).rejects.toMatchObject({ status: 409 });
    await expect(findResumeTarget(deps, crypto.randomUUID(), undefined, paused)).rejects.toMatchObject({ status: 404 });
    await expect(findResumeTarget(deps, flow, "s-other", paused)).rejects.toMatchObject({ status: 400 });
    expect((await findResumeTarget(deps, flow, undefined, paused)).row.id).toBe(paused);
  });

  it("a resume that failed right after the pause can be resumed again, from the pause", () => {
    const base = {
      id: "e",
      agentflowId: "f",
      sessionId: "s",
      action: null,
      isPublic: false,
      createdDate: "",
      updatedDate: "",
      stoppedDate: null,
      detached: false,
      result: null,
      error: null,
      wokenAt: null,
    };
    const stopped = [entry("start"), entry("hi", "STOPPED")];
    expect(resumePoint({ ...base, state: "STOPPED", executionData: JSON.stringify(stopped) })).toEqual(stopped);
    expect(resumePoint({ ...base, state: "ERROR", executionData: JSON.stringify([...stopped, entry("hi", "ERROR")]) })).toEqual(stopped);
    expect(resumePoint({ ...base, state: "TIMEOUT", executionData: JSON.stringify(stopped) })).toEqual(stopped);
    // Past the pause, or never paused: nothing to resume.
    expect(
      resumePoint({ ...base, state: "ERROR", executionData: JSON.stringify([...stopped, entry("hi"), entry("llm", "ERROR")]) }),
    ).toBeUndefined();
    expect(
      resumePoint({ ...base, state: "ERROR", executionData: JSON.stringify([entry("start"), entry("llm", "ERROR")]) }),
    ).toBeUndefined();
    expect(resumePoint({ ...base, state: "FINISHED", executionData: JSON.stringify(stopped) })).toBeUndefined();
  });
});
