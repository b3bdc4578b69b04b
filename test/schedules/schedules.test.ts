// Issue 22, schedules: saving an agentflow whose Start node is a schedule keeps a schedule row
// (its next slot computed in its time zone), GET …/schedule/status says whether it can be enabled
// and why not, PATCH …/schedule/enabled switches it, an invalid cron is a save warning; such a flow
// is refused on POST /prediction. Flowise 3.1.4's shapes.
import { afterAll, describe, expect, it } from "vitest";
import { call, expectError, json } from "../helpers";
import { scheduleFlowData, saveScheduleFlow, statusOf } from "./helpers";

const made: string[] = [];
afterAll(async () => {
  for (const id of made) await call("DELETE", `/chatflows/${id}`);
});
async function save(inputs: Record<string, unknown> = {}) {
  const saved = await saveScheduleFlow(inputs);
  made.push(saved.id);
  return saved;
}

describe("saving a scheduled agentflow", () => {
  it("keeps an enabled schedule row with its next slot (in its time zone)", async () => {
    const before = Date.now();
    const { id, warning } = await save({
      scheduleCronExpression: "0 9 * * *",
      scheduleTimezone: "Asia/Tokyo",
      scheduleDefaultInput: "morning brief",
    });
    expect(warning).toBeUndefined();
    const status = await statusOf(id);
    expect(status).toMatchObject({ enabled: true, canEnable: true });
    expect(status).not.toHaveProperty("reason");
    expect(status.record).toMatchObject({
      triggerType: "AGENTFLOW",
      targetId: id,
      nodeId: "startAgentflow_0",
      cronExpression: "0 9 * * *",
      timezone: "Asia/Tokyo",
      enabled: true,
      scheduleInputMode: "text",
      defaultInput: "morning brief",
      defaultForm: null,
      lastRunAt: null,
      endDate: null,
    });
    // 09:00 in Tokyo is 00:00 UTC, the next one after the save.
    const next = new Date(status.record.nextRunAt);
    expect(next.toISOString()).toMatch(/T00:00:00\.000Z$/);
    expect(next.getTime()).toBeGreaterThan(before);
    expect(next.getTime() - before).toBeLessThanOrEqual(24 * 3600_000);
  });

  it("an invalid cron or time zone is a save warning, the schedule off and canEnable false with the reason", async () => {
    const { id, warning } = await save({ scheduleCronExpression: "every day at nine" });
    expect(warning).toMatch(/^The schedule cannot be enabled: Cron expression must have 5 fields/);
    const status = await statusOf(id);
    expect(status).toMatchObject({
      enabled: false,
      canEnable: false,
      reason: expect.stringMatching(/5 fields/),
      record: { enabled: false, nextRunAt: null },
    });
    const refused = await expectError(await call("PATCH", `/chatflows/${id}/schedule/enabled`, { body: { enabled: true } }), 400);
    expect(refused.message).toMatch(/5 fields/);

    const tz = await save({ scheduleTimezone: "Mars/Olympus_Mons" });
    expect(tz.warning).toBe("The schedule cannot be enabled: Invalid timezone: Mars/Olympus_Mons");
    const past = await save({ scheduleEndDate: "2020-01-01T00:00:00.000Z" });
    expect(await statusOf(past.id)).toMatchObject({
      canEnable: false,
      reason: "End date is in the past",
      record: { enabled: false, endDate: "2020-01-01T00:00:00.000Z" },
    });
  });

  it("a fixed flow keeps its switch; a flow that is no longer a schedule loses its row", async () => {
    const { id } = await save({ scheduleCronExpression: "nope" });
    const fixed = JSON.stringify(scheduleFlowData({ scheduleCronExpression: "15 * * * *" }));
    const saved = await json("PUT", `/chatflows/${id}`, { body: { flowData: fixed } });
    expect(saved.warning).toBeUndefined();
    expect(await statusOf(id)).toMatchObject({
      enabled: false,
      canEnable: true,
      record: { cronExpression: "15 * * * *", nextRunAt: expect.stringMatching(/:15:00\.000Z$/) },
    });
    expect(await json("PATCH", `/chatflows/${id}/schedule/enabled`, { body: { enabled: true } })).toMatchObject({
      enabled: true,
      targetId: id,
    });
    await json("PUT", `/chatflows/${id}`, { body: { flowData: JSON.stringify(scheduleFlowData({ scheduleDefaultInput: "changed" })) } });
    expect((await statusOf(id)).record).toMatchObject({ enabled: true, defaultInput: "changed" });

    const chat = JSON.stringify({
      ...scheduleFlowData(),
      nodes: scheduleFlowData().nodes.map((n, i) => (i === 0 ? { ...n, data: { ...n.data, inputs: { startInputType: "chatInput" } } } : n)),
    });
    await json("PUT", `/chatflows/${id}`, { body: { flowData: chat } });
    expect(await statusOf(id)).toEqual({
      enabled: false,
      canEnable: false,
      reason: "Flow is not configured as a scheduled flow",
      record: null,
    });
    expect((await expectError(await call("PATCH", `/chatflows/${id}/schedule/enabled`, { body: { enabled: false } }), 404)).message).toBe(
      "No schedule record found for this flow",
    );
  });

  it("PATCH needs a boolean; off stays off; unknown flows are 404", async () => {
    const { id } = await save();
    expect((await expectError(await call("PATCH", `/chatflows/${id}/schedule/enabled`, { body: { enabled: "yes" } }), 400)).message).toBe(
      '"enabled" must be a boolean',
    );
    expect(await json("PATCH", `/chatflows/${id}/schedule/enabled`, { body: { enabled: false } })).toMatchObject({ enabled: false });
    expect((await statusOf(id)).enabled).toBe(false);
    await expectError(await call("GET", `/chatflows/${crypto.randomUUID()}/schedule/status`), 404);
    await expectError(await call("GET", `/chatflows/${crypto.randomUUID()}/schedule/trigger-logs`), 404);
  });

  it("is refused on POST /prediction; deleting the flow removes its schedule", async () => {
    const { id } = await save();
    const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "now" } }), 400);
    expect(err.message).toMatch(/^This flow is configured as a Scheduled Trigger/);
    await json("DELETE", `/chatflows/${id}`);
    const { env } = await import("cloudflare:workers");
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM schedule_record WHERE targetId = ?").bind(id).first("n")).toBe(0);
  });
});
