// What a scheduled agentflow's Start node says (Flowise 3.1.4's Start node, `scheduleInput`): the
// cron expression, typed or built from the visual picker (hourly / daily / weekly / monthly), the
// time zone, an optional end date, and what each run is sent (a default text, a form, nothing) —
// and whether the schedule can be enabled, with Flowise's reasons when not.
import type { ScheduleInputMode } from "../../db/enums";
import { checkCron } from "./cron";

export interface StartSchedule {
  nodeId?: string;
  /** The expression the schedule runs on ("" when none could be made). */
  cronExpression: string;
  timezone: string;
  inputMode: ScheduleInputMode;
  defaultInput: string;
  /** The form's default values, as JSON (form mode). */
  defaultForm: string | null;
  /** ISO; undefined when none or invalid (see `reason`). */
  endDate?: string;
  canEnable: boolean;
  reason?: string;
  /** Whether the cron expression (and time zone) are valid, whatever else is wrong. */
  cronValid: boolean;
}

type Inputs = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");

/** The visual picker's fields, checked, as a 5-field expression; or why they do not make one. */
function pickerCron(inputs: Inputs): { cron: string } | { error: string } {
  const frequency = str(inputs.scheduleFrequency);
  if (!frequency) return { error: "Frequency is required" };
  if (!["hourly", "daily", "weekly", "monthly"].includes(frequency)) return { error: `Invalid frequency: ${frequency}` };
  if (frequency === "hourly") {
    const raw = str(inputs.scheduleOnMinute);
    const minute = Number(raw);
    if (raw === "" || Number.isNaN(minute)) return { error: "On Minute is required for hourly frequency" };
    if (!Number.isInteger(minute) || minute < 0 || minute > 59) return { error: "On Minute must be an integer between 0 and 59" };
    return { cron: `${minute} * * * *` };
  }
  const time = str(inputs.scheduleOnTime);
  if (!time) return { error: "On Time is required for daily/weekly/monthly frequency" };
  if (!/^\d{2}:\d{2}$/.test(time)) return { error: "On Time must be in HH:mm format" };
  const [h, m] = time.split(":").map(Number);
  if (h > 23 || m > 59) return { error: "On Time contains out-of-range values" };
  if (frequency === "daily") return { cron: `${m} ${h} * * *` };
  const list = (field: string) =>
    str(inputs[field])
      .split(",")
      .map((d) => d.trim())
      .filter(Boolean);
  if (frequency === "weekly") {
    const days = list("scheduleOnDayOfWeek");
    if (!days.length) return { error: "On Day of Week is required for weekly frequency" };
    const bad = days.find((d) => !/^[1-7]$/.test(d));
    if (bad) return { error: `Invalid day of week value: ${bad} (expected 1-7)` };
    return { cron: `${m} ${h} * * ${days.join(",")}` };
  }
  const days = list("scheduleOnDayOfMonth");
  if (!days.length) return { error: "On Day of Month is required for monthly frequency" };
  const bad = days.find((d) => d !== "L" && !(/^\d{1,2}$/.test(d) && Number(d) >= 1 && Number(d) <= 31));
  if (bad) return { error: `Invalid day of month value: ${bad} (expected 1-31 or L)` };
  return { cron: `${m} ${h} ${days.join(",")} * *` };
}

/** The expression the Start node gives, checked with its time zone. */
function resolveCron(inputs: Inputs, timezone: string): { cron: string; error?: string } {
  const typed = (inputs.scheduleType || "cronExpression") !== "visualPicker";
  const made = typed ? { cron: str(inputs.scheduleCronExpression).trim() } : pickerCron(inputs);
  if ("error" in made) return { cron: "", error: made.error };
  const check = checkCron(made.cron, timezone);
  return check.valid ? { cron: made.cron } : { cron: made.cron, error: check.error };
}

/** The form's defaults as JSON text (Flowise keeps a string as given, an object serialised). */
function formDefaults(raw: unknown): string {
  if (typeof raw === "string") return raw;
  return JSON.stringify(raw ?? {});
}

export function startSchedule(inputs: Inputs, nodeId: string | undefined, now: Date): StartSchedule {
  const timezone = str(inputs.scheduleTimezone) || "UTC";
  const mode = (
    ["text", "form", "none"].includes(str(inputs.scheduleInputMode)) ? str(inputs.scheduleInputMode) : "text"
  ) as ScheduleInputMode;
  const defaultInput = mode === "text" ? str(inputs.scheduleDefaultInput) : "";
  const { cron, error } = resolveCron(inputs, timezone);
  const schedule: StartSchedule = {
    nodeId,
    cronExpression: cron,
    timezone,
    inputMode: mode,
    defaultInput,
    defaultForm: mode === "form" ? formDefaults(inputs.scheduleFormDefaults) : null,
    canEnable: true,
    cronValid: !error,
  };
  const rawEnd = inputs.scheduleEndDate;
  const end = rawEnd !== undefined && rawEnd !== null && rawEnd !== "" ? new Date(rawEnd as string) : undefined;
  if (end && !Number.isNaN(end.getTime())) schedule.endDate = end.toISOString();
  const refuse = (reason: string) => ({ ...schedule, canEnable: false, reason });
  if (error) return refuse(error);
  if (end && Number.isNaN(end.getTime())) return refuse("Invalid end date");
  if (end && end <= now) return refuse("End date is in the past");
  if (mode === "form" && !(Array.isArray(inputs.scheduleFormInputTypes) && inputs.scheduleFormInputTypes.length)) {
    return refuse("At least one form field must be defined to enable schedule");
  }
  if (mode === "text" && (!defaultInput || defaultInput === "<p></p>")) return refuse("Default input is required to enable schedule");
  return schedule;
}
