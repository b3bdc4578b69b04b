// The Worker's Cron Trigger (wrangler.toml `[triggers] crons = ["* * * * *"]`): every minute, the
// scheduled agentflows whose slot is due are claimed and started as detached runs
// (services/schedules/tick.ts). No timer lives in any request or isolate, so a restart loses
// nothing and several isolates never fire a slot twice.
import { createDb } from "../db";
import type { Env } from "../env";
import { createRuntime } from "../services/runtime";
import type { RunDeps } from "../services/runs";
import { type TickReport, runScheduleTick } from "../services/schedules/tick";

export async function fireSchedules(
  controller: Pick<ScheduledController, "scheduledTime" | "cron">,
  env: Env,
  ctx: Pick<ExecutionContext, "waitUntil">,
): Promise<TickReport> {
  const db = createDb(env.DB);
  const deps: RunDeps = {
    db,
    env,
    runtime: createRuntime(env, db),
    waitUntil: (work) => ctx.waitUntil(work),
    requestId: `cron ${controller.cron}`,
  };
  const report = await runScheduleTick(deps, controller.scheduledTime);
  if (report.claimed) console.log(`cron ${controller.cron}: ${report.started} scheduled run(s) started, ${report.failed} could not start`);
  return report;
}
