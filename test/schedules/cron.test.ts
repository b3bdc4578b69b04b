// Issue 22, schedules: the next slot of a cron expression in its time zone (croner, Intl), across
// daylight-saving changes and end dates, and what a Start node's schedule says (Flowise 3.1.4's
// cron rules, visual picker and reasons why a schedule cannot be enabled).
import { describe, expect, it } from "vitest";
import { checkCron, nextSlot } from "../../src/services/schedules/cron";
import { startSchedule } from "../../src/services/schedules/start-schedule";

const at = (iso: string) => new Date(iso);
const next = (cron: string, tz: string, after: string, end?: string) =>
  nextSlot(cron, tz, at(after), end ? at(end) : null)?.toISOString() ?? null;

describe("next slot", () => {
  it("follows the time zone, its daylight-saving shift included", () => {
    // 09:00 on weekdays in New York: EST (UTC-5) before 8 March 2026, EDT (UTC-4) after.
    expect(next("0 9 * * 1-5", "America/New_York", "2026-03-06T15:00:00Z")).toBe("2026-03-09T13:00:00.000Z");
    expect(next("0 9 * * 1-5", "America/New_York", "2026-03-05T13:00:00Z")).toBe("2026-03-05T14:00:00.000Z");
    expect(next("30 8 * * *", "Asia/Kolkata", "2026-01-01T00:00:00Z")).toBe("2026-01-01T03:00:00.000Z");
    expect(next("0 0 * * *", "UTC", "2026-01-01T00:00:00Z")).toBe("2026-01-02T00:00:00.000Z"); // strictly after
  });

  it("takes Flowise's forms: steps from a start, the last day of the month, six fields with fixed seconds", () => {
    expect(next("5/15 * * * *", "UTC", "2026-01-01T00:06:00Z")).toBe("2026-01-01T00:20:00.000Z");
    expect(next("0 0 L * *", "UTC", "2026-02-03T00:00:00Z")).toBe("2026-02-28T00:00:00.000Z");
    expect(next("30 15 10 * * *", "UTC", "2026-01-01T00:00:00Z")).toBe("2026-01-01T10:15:30.000Z");
  });

  it("ends at the end date", () => {
    expect(next("0 * * * *", "UTC", "2026-01-01T10:30:00Z", "2026-01-01T11:00:00Z")).toBeNull();
    expect(next("0 * * * *", "UTC", "2026-01-01T10:30:00Z", "2026-01-01T11:00:01Z")).toBe("2026-01-01T11:00:00.000Z");
  });

  it("refuses what is not a cron expression, an unknown time zone, and seconds finer than a minute", () => {
    expect(checkCron("*/5 * * * *", "Europe/Paris")).toEqual({ valid: true });
    expect(checkCron("", "UTC")).toEqual({ valid: false, error: "Cron expression must be a non-empty string" });
    expect(checkCron("* * * *", "UTC")).toMatchObject({ valid: false, error: expect.stringMatching(/must have 5 fields/) });
    expect(checkCron("61 * * * *", "UTC")).toMatchObject({
      valid: false,
      error: expect.stringMatching(/Invalid cron expression "61 \* \* \* \*"/),
    });
    expect(checkCron("0 9 * * *", "Mars/Olympus")).toEqual({ valid: false, error: "Invalid timezone: Mars/Olympus" });
    expect(checkCron("*/10 * * * * *", "UTC")).toMatchObject({ valid: false, error: expect.stringMatching(/at most once a minute/) });
  });
});

describe("a Start node's schedule", () => {
  const now = at("2026-06-01T12:00:00Z");
  it("builds the expression from the visual picker", () => {
    const picked = (inputs: Record<string, unknown>) =>
      startSchedule({ scheduleType: "visualPicker", scheduleDefaultInput: "go", ...inputs }, "startAgentflow_0", now);
    expect(picked({ scheduleFrequency: "hourly", scheduleOnMinute: 15 }).cronExpression).toBe("15 * * * *");
    expect(picked({ scheduleFrequency: "daily", scheduleOnTime: "07:05" }).cronExpression).toBe("5 7 * * *");
    expect(picked({ scheduleFrequency: "weekly", scheduleOnTime: "09:00", scheduleOnDayOfWeek: "1,5" }).cronExpression).toBe("0 9 * * 1,5");
    expect(picked({ scheduleFrequency: "monthly", scheduleOnTime: "23:30", scheduleOnDayOfMonth: "1,L" }).cronExpression).toBe(
      "30 23 1,L * *",
    );
    expect(picked({ scheduleFrequency: "daily", scheduleOnTime: "7:5" })).toMatchObject({
      canEnable: false,
      reason: "On Time must be in HH:mm format",
    });
    expect(picked({ scheduleFrequency: "weekly", scheduleOnTime: "09:00", scheduleOnDayOfWeek: "8" })).toMatchObject({
      canEnable: false,
      reason: "Invalid day of week value: 8 (expected 1-7)",
    });
  });

  it("says why it cannot be enabled: the cron, the time zone, the end date, the input", () => {
    const typed = (inputs: Record<string, unknown>) =>
      startSchedule(
        { scheduleType: "cronExpression", scheduleCronExpression: "0 9 * * *", scheduleDefaultInput: "go", ...inputs },
        undefined,
        now,
      );
    expect(typed({})).toMatchObject({ canEnable: true, cronValid: true, inputMode: "text", timezone: "UTC" });
    expect(typed({ scheduleCronExpression: "not a cron" })).toMatchObject({
      canEnable: false,
      cronValid: false,
      reason: expect.stringMatching(/5 fields/),
    });
    expect(typed({ scheduleTimezone: "Nowhere/City" })).toMatchObject({ canEnable: false, reason: "Invalid timezone: Nowhere/City" });
    expect(typed({ scheduleEndDate: "2026-05-01" })).toMatchObject({
      canEnable: false,
      reason: "End date is in the past",
      endDate: "2026-05-01T00:00:00.000Z",
    });
    expect(typed({ scheduleEndDate: "someday" })).toMatchObject({ canEnable: false, reason: "Invalid end date" });
    expect(typed({ scheduleDefaultInput: "<p></p>" })).toMatchObject({
      canEnable: false,
      reason: "Default input is required to enable schedule",
    });
    expect(typed({ scheduleInputMode: "form" })).toMatchObject({
      canEnable: false,
      reason: "At least one form field must be defined to enable schedule",
    });
    expect(
      typed({
        scheduleInputMode: "form",
        scheduleFormInputTypes: [{ type: "string", name: "team" }],
        scheduleFormDefaults: { team: "eng" },
      }),
    ).toMatchObject({ canEnable: true, defaultForm: '{"team":"eng"}', defaultInput: "" });
    expect(typed({ scheduleInputMode: "none", scheduleDefaultInput: "" })).toMatchObject({ canEnable: true });
  });
});
