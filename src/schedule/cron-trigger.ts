// The Worker's Cron Trigger (wrangler.toml `[triggers] crons = ["* * * * *"]`): every minute, the
// scheduled agentflows whose slot is due are claimed and started as detached runs
// (services/schedules/tick.ts), and detached runs a restart left stalled are woken
// (services/executions/wake.ts). No timer lives in any request or isolate, so a restart loses
// nothing and several isolates never fire a slot, or wake a run, twice.
import { createDb } from "../db";
import type { Env } from "../env";
import { workflowRuns } from "../detached/runs-port";
import { createServices } from "../services/container";
import { type SweepReport, sweepDetached } from "../services/executions";
import type { RunDeps } from "../services/runs";
import { type TickReport, runScheduleTick } from "../services/schedules/tick";

export async function fireSchedules(
  controller: Pick<ScheduledController, "scheduledTime" | "cron">,
  env: Env,
  ctx: Pick<ExecutionContext, "waitUntil">,
): Promise<TickReport & { wake: SweepReport }> {
  const db = createDb(env.DB);
  const deps: RunDeps = createServices(
    env,
    db,
    { id: `cron ${controller.cron}`, waitUntil: (work) => ctx.waitUntil(work) },
    workflowRuns(env),
  );
  // The sweep goes by the clock, not the tick's time (a tick fired by hand may name any time), and
  // beside the schedules: a failure of one leaves the other to do its work.
  const sweeping = sweepDetached(deps).catch((err): SweepReport => {
    console.error(`cron ${controller.cron}: the sweep of stalled runs failed: ${String(err)}`);
    return { due: 0, woken: 0, settled: 0, failed: 1 };
  });
  ctx.waitUntil(sweeping);
  const report = await runScheduleTick(deps, controller.scheduledTime);
  if (report.claimed) console.log(`cron ${controller.cron}: ${report.started} scheduled run(s) started, ${report.failed} could not start`);
  const wake = await sweeping;
  if (wake.due) console.log(`cron ${controller.cron}: ${wake.woken} stalled run(s) woken, ${wake.settled} settled, ${wake.failed} failed`);
  return { ...report, wake };
}
