// The run door's durable steps (services/runs/steps.ts) on Cloudflare Workflows' `step.do`:
// - a node's result over a step's 1 MiB limit goes to R2 and the step keeps its key;
// - a failure that a retry cannot mend (a 4xx, a refused run) is stored as the step's outcome and
//   thrown again after it, so the step is not retried; a provider's 5xx or a network failure is
//   thrown inside the step, which Workflows retries (RETRIES);
// - `live` turns true when a step's work runs: until then a restarted run is replaying, and
//   `onStep` tells after each step whether its work ran or its stored result was answered;
// - each attempt of a step's work runs in its own scope (`stepScope`: the step's name and a fresh
//   attempt id), so the frames it makes are known as that attempt's (event-log.ts): an interrupted
//   step that runs again replaces them instead of adding to them;
// - while a step's work runs the run shows progress (`progress`: the execution row touched at its
//   start and every `everyMs`), so a live run is never taken for a stalled one (services/executions/wake.ts);
// - a run that would pass Workflows' 1,024 steps per instance ends with an error naming the limit.
import { AsyncLocalStorage } from "node:async_hooks";
import type { WorkflowStep, WorkflowStepConfig } from "cloudflare:workers";
import { ApiError } from "../errors";
import { sha256Hex } from "../lib/crypto";
import { stableId } from "../lib/ids";
import { executionFilesPrefix } from "../services/files";
import type { RunSteps } from "../services/runs";

/** Workflows' own limit; a few are kept for the run's bookkeeping (result, frames, callback, waits). */
export const WORKFLOW_STEP_LIMIT = 1024;
const BOOKKEEPING = 24;
/** A step's stored result must stay under 1 MiB: larger ones go to R2. */
const SPILL_BYTES = 900_000;

export const RETRIES: WorkflowStepConfig = { retries: { limit: 2, delay: "1 second", backoff: "exponential" }, timeout: "15 minutes" };

type Stored<T> = { ok: true; value: T | { r2: string }; spilled?: boolean } | { ok: false; status: number; message: string };

const retryable = (err: unknown) => !(err instanceof ApiError) || err.status === 502 || err.status === 503;

export interface StepCounter {
  count: number;
}

/** The attempt of a step whose work is running; `frames` counts the frames it made. */
export interface StepScope {
  name: string;
  attempt: string;
  frames: number;
}

/** The step attempt the current code runs in (undefined between steps). */
export const stepScope = new AsyncLocalStorage<StepScope>();

/** The run's sign of life while a step works: `beat` touches the execution row. */
export interface Progress {
  beat(): Promise<void>;
  everyMs: number;
}

export class WorkflowSteps implements RunSteps {
  live = false;
  /** Told after each step whether its work ran (true) or its stored result was answered (a replay). */
  onStep?: (ran: boolean) => void;
  private working = 0;
  private lastBeat = 0;
  private beating?: ReturnType<typeof setInterval>;

  constructor(
    private readonly step: WorkflowStep,
    private readonly files: R2Bucket,
    private readonly executionId: string,
    /** Names are prefixed per part of the run (a run, then each resume), so they never repeat. */
    readonly prefix: string,
    private readonly counter: StepCounter,
    private readonly progress?: Progress,
  ) {}

  id(name: string): Promise<string> {
    return stableId(`${this.executionId}/${this.prefix}${name}`);
  }

  /** A bookkeeping step of the run itself (counted, not spilled). */
  async own<T extends Rpc.Serializable<T>>(name: string, work: () => Promise<T>, config: WorkflowStepConfig = RETRIES): Promise<T> {
    this.counter.count++;
    let ran = false;
    const stepName = `${this.prefix}${name}`;
    const value = (await this.step.do(stepName, config, async () => {
      ran = this.begin();
      return this.attempt(stepName, work);
    })) as T;
    this.onStep?.(ran);
    return value;
  }

  /** A step's work runs: the run is live from here on (frames held since the last step go out). */
  private begin(): true {
    if (!this.live) {
      this.live = true;
      this.onStep?.(true);
    }
    return true;
  }

  /** One attempt of a step's work: in its own scope, the run showing progress while it lasts. */
  private async attempt<T>(name: string, work: () => Promise<T>): Promise<T> {
    this.working++;
    this.beat(false);
    if (this.progress && !this.beating) this.beating = setInterval(() => this.beat(true), this.progress.everyMs);
    try {
      return await stepScope.run({ name, attempt: crypto.randomUUID(), frames: 0 }, work);
    } finally {
      if (--this.working === 0 && this.beating) {
        clearInterval(this.beating);
        this.beating = undefined;
      }
    }
  }

  /** Touches the row, at most once per `everyMs` unless `due` (the timer's tick). Never fails the step. */
  private beat(due: boolean): void {
    const progress = this.progress;
    if (!progress || (!due && Date.now() - this.lastBeat < progress.everyMs)) return;
    this.lastBeat = Date.now();
    progress.beat().catch((err) => console.error(`execution ${this.executionId}: progress not stored: ${String(err)}`));
  }

  async do<T>(name: string, work: () => Promise<T>): Promise<T> {
    if (++this.counter.count > WORKFLOW_STEP_LIMIT - BOOKKEEPING) {
      throw new ApiError(
        400,
        `The run reached Cloudflare Workflows' limit of ${WORKFLOW_STEP_LIMIT} steps per run (one per node, ` +
          `resumes included) and was stopped`,
      );
    }
    const stepName = `${this.prefix}${name}`;
    let ran = false;
    const stored = (await this.step.do(stepName, RETRIES, async () => {
      ran = this.begin();
      try {
        return (await this.spill(stepName, await this.attempt(stepName, work))) as unknown as Rpc.Serializable<unknown>;
      } catch (err) {
        if (retryable(err)) throw err;
        const e = err as ApiError;
        return { ok: false, status: e.status, message: e.message };
      }
    })) as unknown as Stored<T>;
    this.onStep?.(ran);
    if (!stored.ok) throw new ApiError(stored.status, stored.message);
    return this.unspill(stored);
  }

  private async spill<T>(name: string, value: T): Promise<Stored<T>> {
    const json = JSON.stringify(value ?? null);
    if (json.length < SPILL_BYTES) return { ok: true, value: JSON.parse(json) };
    const key = `${executionFilesPrefix(this.executionId)}steps/${await sha256Hex(name)}.json`;
    await this.files.put(key, json);
    return { ok: true, value: { r2: key }, spilled: true };
  }

  private async unspill<T>(stored: Stored<T> & { ok: true }): Promise<T> {
    if (!stored.spilled) return stored.value as T;
    const key = (stored.value as { r2: string }).r2;
    const object = await this.files.get(key);
    if (!object) throw new ApiError(500, `A step's stored result is missing (${key})`);
    return (await object.json()) as T;
  }
}
