// The Worker's Cron Trigger (wrangler.toml `[triggers] crons = ["* * * * *"]`): every minute, the
// scheduled agentflows whose slot is due are claimed and started as detached runs
// (services/schedules/tick.ts). No timer lives in any request or isolate, so a restart loses
// nothing and several isolates never fire a slot twice.
import { createDb } from "../db";
import type { Env } from "../env";
import { createServices } from "../services/container";
import type { RunDeps } from "../services/runs";
import { type TickReport, runScheduleTick } from "../services/schedules/tick";

export async function fireSchedules(
  controller: Pick<ScheduledController, "scheduledTime" | "cron">,
  env: Env,
  ctx: Pick<ExecutionContext, "waitUntil">,
): Promise<TickReport> {
  const db = createDb(env.DB);
  const deps: RunDeps = createServices(env, db, { id: `cron ${controller.cron}`, waitUntil: (work) => ctx.waitUntil(work) });
  const report = await runScheduleTick(deps, controller.scheduledTime);
  if (report.claimed) console.log(`cron ${controller.cron}: ${report.started} scheduled run(s) started, ${report.failed} could not start`);
  return report;
}
