// Cron expressions of scheduled agentflows: parsed and stepped by croner (no dependencies, time
// zones through Intl, so DST shifts are the zone's own), within Flowise 3.1.4's rules — 5 fields
// (minute hour day month weekday), or 6 with a seconds field that fires at most once a minute
// (the Worker's Cron Trigger ticks every minute, so a slot is a minute).
import { Cron } from "croner";

export type CronCheck = { valid: true } | { valid: false; error: string };

const FIELDS = "Cron expression must have 5 fields (minute hour day month weekday) or 6 fields (second minute hour day month weekday)";

function patternOf(expression: string, timezone: string): Cron {
  // `sloppyRanges`: Flowise also takes `5/15` (a start with a step) for `5-59/15`.
  return new Cron(expression, { timezone, mode: "5-or-6-parts", sloppyRanges: true, paused: true });
}

export function validTimezone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

export function checkCron(expression: unknown, timezone: string): CronCheck {
  if (typeof expression !== "string" || !expression.trim()) return { valid: false, error: "Cron expression must be a non-empty string" };
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) return { valid: false, error: FIELDS };
  if (!validTimezone(timezone)) return { valid: false, error: `Invalid timezone: ${timezone}` };
  if (fields.length === 6 && !/^\d{1,2}$/.test(fields[0])) {
    return {
      valid: false,
      error:
        `Invalid cron field at position 1: "${fields[0]}" (schedules run at most once a minute: give the ` +
        `seconds field a single value)`,
    };
  }
  try {
    patternOf(expression.trim(), timezone);
  } catch (err) {
    return { valid: false, error: `Invalid cron expression "${expression.trim()}": ${(err as Error).message}` };
  }
  return { valid: true };
}

/**
 * The first slot strictly after `after` (a valid expression), or null when there is none before
 * `endDate` (or within croner's search horizon).
 */
export function nextSlot(expression: string, timezone: string, after: Date, endDate?: Date | null): Date | null {
  const next = patternOf(expression.trim(), timezone).nextRun(after);
  if (!next) return null;
  return endDate && next.getTime() >= endDate.getTime() ? null : next;
}
