// What every part of a detached run shares, built once per Workflow run: the services (one database
// client; the run's time limit ASYNC_RUN_TIMEOUT_MS handed to the door as `timeLimitMs`, the env
// left as it is), its params, the Workflow's step API, the step count, the secrets its messages are
// scrubbed of, and its sign of progress while a step works.
import type { WorkflowStep } from "cloudflare:workers";
import { createDb } from "../db";
import type { Env } from "../env";
import { workerSecretValues } from "../lib/secrets";
import { type Services, createServices } from "../services/container";
import type { DetachedParams } from "../services/detached-runs";
import { markProgress } from "../services/executions";
import { workflowRuns } from "./runs-port";
import type { Progress, StepCounter } from "./steps";

export interface DetachedContext {
  deps: Services;
  params: DetachedParams;
  step: WorkflowStep;
  counter: StepCounter;
  secrets: string[];
  progress: Progress;
}

export function detachedContext(
  env: Env,
  params: DetachedParams,
  step: WorkflowStep,
  waitUntil: (work: Promise<unknown>) => void,
): DetachedContext {
  const services = createServices(env, createDb(env.DB), { id: `execution ${params.executionId}`, waitUntil }, workflowRuns(env));
  const deps: Services = { ...services, timeLimitMs: services.config.ASYNC_RUN_TIMEOUT_MS };
  return {
    deps,
    params,
    step,
    counter: { count: 0 },
    secrets: workerSecretValues(env),
    // While a step works, the row shows progress often enough that no wake takes the run for stalled.
    progress: {
      beat: () => markProgress(deps, params.executionId),
      everyMs: Math.max(1000, Math.floor(deps.config.DETACHED_STALL_MS / 3)),
    },
  };
}
