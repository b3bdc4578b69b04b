// Issue 28 item 7: an agentflow brought in by an import whose Start node is a schedule gets its
// schedule row as a save makes it — enabled with its next slot when it can be, and when it cannot
// (an invalid cron) the save's warning in the import's answer, the row off and canEnable false.
// Importing again keeps the switch; a flow the file makes no schedule loses its row.
import { describe, expect, it } from "vitest";
import { json } from "../helpers";
import { scheduleFlowData, statusOf } from "../schedules/helpers";
import { importFile } from "./helpers";

const agentflow = (id: string, name: string, inputs: Record<string, unknown> = {}) => ({
  id,
  name,
  flowData: JSON.stringify(scheduleFlowData(inputs)),
  deployed: false,
  isPublic: false,
  type: "AGENTFLOW",
  createdDate: "2026-03-01T10:00:00.000Z",
  updatedDate: "2026-03-01T10:00:00.000Z",
});

const importFlows = async (flows: unknown[]) => {
  const res = await importFile({ FileDefaultName: "ExportData.json", AgentFlowV2: flows });
  expect(res.status).toBe(200);
  return res.json<{ warnings: { id: string; name: string; warning: string }[] }>();
};

describe("importing a scheduled agentflow", () => {
  it("makes its schedule row, enabled, with its next slot: the row a save makes", async () => {
    const id = crypto.randomUUID();
    const before = Date.now();
    const flow = agentflow(id, "nightly", { scheduleCronExpression: "0 9 * * *", scheduleTimezone: "Asia/Tokyo" });
    const answer = await importFlows([flow]);
    expect(answer.warnings.filter((w) => w.id === id)).toEqual([]);
    const status = await statusOf(id);
    expect(status).toMatchObject({ enabled: true, canEnable: true });
    expect(status.record).toMatchObject({
      triggerType: "AGENTFLOW",
      targetId: id,
      nodeId: "startAgentflow_0",
      cronExpression: "0 9 * * *",
      timezone: "Asia/Tokyo",
      enabled: true,
      scheduleInputMode: "text",
      defaultInput: "daily report",
      defaultForm: null,
      lastRunAt: null,
      endDate: null,
    });
    const next = new Date(status.record.nextRunAt);
    expect(next.toISOString()).toMatch(/T00:00:00\.000Z$/);
    expect(next.getTime()).toBeGreaterThan(before);

    // A save of the same flowData makes the same row.
    const saved = await json("POST", "/chatflows", {
      body: { name: "saved twin", type: "AGENTFLOW", flowData: flow.flowData },
    });
    const twin = (await statusOf(saved.id)).record;
    const { id: _a, targetId: _b, createdDate: _c, updatedDate: _d, ...same } = status.record;
    expect(twin).toMatchObject(same);
  });

  it("an invalid cron: the save's warning in the answer, the row off, canEnable false with the reason", async () => {
    const id = crypto.randomUUID();
    const answer = await importFlows([agentflow(id, "broken", { scheduleCronExpression: "every day at nine" })]);
    const saved = await json("POST", "/chatflows", {
      body: {
        name: "saved twin",
        type: "AGENTFLOW",
        flowData: agentflow(id, "x", { scheduleCronExpression: "every day at nine" }).flowData,
      },
    });
    expect(saved.warning).toMatch(/^The schedule cannot be enabled: Cron expression must have 5 fields/);
    expect(answer.warnings.filter((w) => w.id === id)).toEqual([{ id, name: "broken", warning: saved.warning }]);
    expect(await statusOf(id)).toMatchObject({
      enabled: false,
      canEnable: false,
      reason: expect.stringMatching(/5 fields/),
      record: { enabled: false, nextRunAt: null, cronExpression: "every day at nine" },
    });
  });

  it("importing again keeps the switch; a flow that is no longer a schedule loses its row", async () => {
    const id = crypto.randomUUID();
    await importFlows([agentflow(id, "weekly", { scheduleCronExpression: "0 8 * * 1" })]);
    const first = (await statusOf(id)).record;
    await json("PATCH", `/chatflows/${id}/schedule/enabled`, { body: { enabled: false } });

    await importFlows([agentflow(id, "weekly", { scheduleCronExpression: "30 8 * * 1" })]);
    const again = await statusOf(id);
    expect(again.record).toMatchObject({ id: first.id, enabled: false, cronExpression: "30 8 * * 1" });

    const chat = { ...agentflow(id, "weekly"), flowData: JSON.stringify({ nodes: [], edges: [] }) };
    await importFlows([chat]);
    expect(await statusOf(id)).toMatchObject({ record: null, canEnable: false });
  });
});
