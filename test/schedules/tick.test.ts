// Issue 22, firing: the Worker's Cron Trigger starts each due slot of a schedule as a detached run
// (a Workflow), exactly once — overlapping or repeated ticks for one slot, and several isolates,
// claim it in D1 once — a slot missed while nothing ticked runs once, a disabled or ended schedule
// does not run, and each run is an execution (chatType SCHEDULED) and a trigger-log row.
import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { afEdge, afNode, messagesOf, saveAgentflowOf } from "../agentflow-api/flows";
import { call, expectError, json, sleep } from "../helpers";
import { logsOf, saveScheduleFlow, statusOf, tick } from "./helpers";

vi.setConfig({ testTimeout: 30_000 });

const made: string[] = [];
afterEach(async () => {
  while (made.length) await call("DELETE", `/chatflows/${made.pop()}`);
});

async function save(inputs: Record<string, unknown> = {}, reply?: string): Promise<{ id: string; next: number }> {
  const { id } = await saveScheduleFlow(inputs, reply);
  made.push(id);
  const { record } = await statusOf(id);
  return { id, next: Date.parse(record.nextRunAt) };
}

/** The trigger-log rows of a flow once none is RUNNING (the Workflow settles each). */
async function settledLogs(id: string, ms = 20_000): Promise<any[]> {
  const until = Date.now() + ms;
  for (;;) {
    const { data } = await logsOf(id);
    if (data.length && data.every((l: any) => l.status !== "RUNNING")) return data;
    if (Date.now() > until) throw new Error(`trigger logs of ${id} still RUNNING: ${JSON.stringify(data)}`);
    await sleep(50);
  }
}

describe("a tick", () => {
  it("starts a due slot as a detached run: an execution, SCHEDULED messages with the default input, a SUCCEEDED log", async () => {
    const { id, next } = await save({ scheduleDefaultInput: "compile the report" });
    expect(await tick(next - 60_000)).toMatchObject({ due: 0, claimed: 0 }); // not yet due
    expect(await tick(next)).toMatchObject({ outcome: "ok", due: 1, claimed: 1, started: 1, failed: 0 });

    const [log] = await settledLogs(id);
    expect(log).toMatchObject({
      status: "SUCCEEDED",
      targetId: id,
      triggerType: "AGENTFLOW",
      scheduledAt: new Date(next).toISOString(),
      error: null,
      executionId: expect.any(String),
    });
    expect(log.elapsedTimeMs).toBeGreaterThanOrEqual(0);
    const execution = await json("GET", `/executions/${log.executionId}`);
    expect(execution).toMatchObject({ state: "FINISHED", agentflowId: id });
    expect(execution.result.text).toBe("ran: compile the report");
    expect((await messagesOf(id)).map((m) => [m.role, m.content, m.chatType])).toEqual([
      ["userMessage", "compile the report", "SCHEDULED"],
      ["apiMessage", "ran: compile the report", "SCHEDULED"],
    ]);
    // The schedule moved on: the slot ran, the next is after the tick.
    const { record } = await statusOf(id);
    expect(record.lastRunAt).toBe(new Date(next).toISOString());
    expect(Date.parse(record.nextRunAt)).toBe(next + 5 * 60_000);
  });

  it("runs a slot exactly once under three concurrent ticks, and not again on a retried one", async () => {
    const { id, next } = await save();
    const reports = await Promise.all([tick(next), tick(next + 1000), tick(next + 2000)]);
    expect(reports.reduce((n, r) => n + r.claimed, 0)).toBe(1);
    expect(reports.reduce((n, r) => n + r.started, 0)).toBe(1);
    expect(await tick(next)).toMatchObject({ claimed: 0 });
    const logs = await settledLogs(id);
    expect(logs).toHaveLength(1);
    expect((await json("GET", `/executions?agentflowId=${id}`)).data).toHaveLength(1);
  });

  it("runs slots missed while nothing ticked once, then moves past now", async () => {
    const { id, next } = await save({ scheduleCronExpression: "* * * * *" });
    const late = next + 10 * 60_000 + 30_000;
    expect(await tick(late)).toMatchObject({ claimed: 1 });
    expect(await tick(late + 1000)).toMatchObject({ claimed: 0 });
    const logs = await settledLogs(id);
    expect(logs.map((l) => l.scheduledAt)).toEqual([new Date(next).toISOString()]);
    expect(Date.parse((await statusOf(id)).record.nextRunAt)).toBe(next + 11 * 60_000);
  });

  it("a disabled schedule does not run; one past its end date runs its last slot and switches off", async () => {
    const off = await save();
    await json("PATCH", `/chatflows/${off.id}/schedule/enabled`, { body: { enabled: false } });
    expect(await tick(off.next)).toMatchObject({ claimed: 0 });
    expect((await logsOf(off.id)).data).toEqual([]);

    const { id, next } = await save({ scheduleCronExpression: "* * * * *" });
    // End 30 s after the first slot: that slot is the last.
    const { nodes, edges } = (await import("./helpers")).scheduleFlowData({
      scheduleCronExpression: "* * * * *",
      scheduleEndDate: new Date(next + 30_000).toISOString(),
    });
    await json("PUT", `/chatflows/${id}`, { body: { flowData: JSON.stringify({ nodes, edges }) } });
    expect(await tick(next)).toMatchObject({ claimed: 1 });
    expect((await statusOf(id)).record).toMatchObject({ enabled: false, nextRunAt: null });
    expect(await tick(next + 60_000)).toMatchObject({ claimed: 0 });
    expect(await settledLogs(id)).toHaveLength(1);
  });

  it("sends the default form in form mode, and a blank question in none mode", async () => {
    const form = await save(
      {
        scheduleInputMode: "form",
        scheduleFormInputTypes: [{ type: "string", name: "team", label: "Team" }],
        scheduleFormDefaults: { team: "platform" },
      },
      "team={{ $form.team }}",
    );
    const none = await save({ scheduleInputMode: "none", scheduleDefaultInput: "" }, "[{{ question }}]");
    await tick(Math.max(form.next, none.next));
    const [f] = await settledLogs(form.id);
    expect((await json("GET", `/executions/${f.executionId}`)).result.text).toBe("team=platform");
    const [n] = await settledLogs(none.id);
    expect((await json("GET", `/executions/${n.executionId}`)).result.text).toBe("[ ]");
  });

  it("a run that fails writes a FAILED log with the error; one that cannot start, too", async () => {
    const { nodes } = (await import("./helpers")).scheduleFlowData();
    const thrower = afNode("customFunctionAgentflow_0", "Fail", {
      customFunctionJavascriptFunction: "throw new Error('report source down')",
    });
    const { id: failing } = await saveAgentflowOf([nodes[0], thrower], [afEdge("startAgentflow_0", "customFunctionAgentflow_0")]);
    made.push(failing);
    const unknown = afNode("noSuchNodeAgentflow_0", "Ghost", {});
    const { id: broken } = await saveAgentflowOf([nodes[0], unknown], [afEdge("startAgentflow_0", "noSuchNodeAgentflow_0")]);
    made.push(broken);
    const at = Date.parse((await statusOf(failing)).record.nextRunAt);
    const report = await tick(at);
    expect(report).toMatchObject({ claimed: 2, started: 1, failed: 1 });
    const [failed] = await settledLogs(failing);
    expect(failed).toMatchObject({
      status: "FAILED",
      error: expect.stringContaining("report source down"),
      executionId: expect.any(String),
    });
    const [refused] = await settledLogs(broken);
    expect(refused).toMatchObject({ status: "FAILED", executionId: null, error: expect.stringMatching(/cannot run/) });
  });

  it("is the worker's scheduled() handler (a Cron Trigger invocation)", async () => {
    const { id, next } = await save();
    await (exports as unknown as { default: { scheduled(o: { scheduledTime: Date; cron: string }): Promise<unknown> } }).default.scheduled({
      scheduledTime: new Date(next),
      cron: "* * * * *",
    });
    const logs = await settledLogs(id);
    expect(logs.map((l) => [l.status, l.scheduledAt])).toEqual([["SUCCEEDED", new Date(next).toISOString()]]);
  });
});

describe("trigger logs", () => {
  it("lists newest slot first with status filter and pages; deleting rows deletes their executions", async () => {
    const { id, next } = await save({ scheduleCronExpression: "* * * * *" });
    for (let i = 0; i < 3; i++) await tick(next + i * 60_000);
    const logs = await settledLogs(id);
    expect(logs.map((l) => l.scheduledAt)).toEqual([2, 1, 0].map((i) => new Date(next + i * 60_000).toISOString()));
    const page = await logsOf(id, "?page=2&limit=2");
    expect(page).toMatchObject({ total: 3, page: 2, limit: 2 });
    expect(page.data.map((l: any) => l.id)).toEqual([logs[2].id]);
    expect((await logsOf(id, "?status=FAILED")).total).toBe(0);
    expect((await logsOf(id, "?status=SUCCEEDED&status=FAILED")).total).toBe(3);
    await expectError(await call("GET", `/chatflows/${id}/schedule/trigger-logs?status=DONE`), 400);
    await expectError(await call("GET", `/chatflows/${id}/schedule/trigger-logs?limit=0`), 400);

    const removed = await json("DELETE", `/chatflows/${id}/schedule/trigger-logs`, {
      body: { logIds: [logs[0].id, logs[1].id, crypto.randomUUID()] },
    });
    expect(removed).toEqual({ success: true, deletedLogs: 2, deletedExecutions: 2 });
    expect((await logsOf(id)).data.map((l: any) => l.id)).toEqual([logs[2].id]);
    await expectError(await call("GET", `/executions/${logs[0].executionId}`), 404);
    expect(
      (await expectError(await call("DELETE", `/chatflows/${id}/schedule/trigger-logs`, { body: { logIds: "all" } }), 400)).message,
    ).toBe("logIds must be a string[]");
  });
});
