// The checkpointer of one agentflow run (the engine's checkpoint port writes through it): a
// checkpoint after every node (one conditional UPDATE, the row inserted by the first one unless the
// run opened an existing row), the lease renewed while a node runs, the final state flipped in the
// same D1 batch that stores the run's messages (services/runs/agentflow-messages.ts), and a claimed
// pause given back when the run is refused before its first node. Opened by `newExecution`,
// `acceptedExecution` (below) or `claimForResume` (resume.ts).
import { type SQL, and, eq, sql } from "drizzle-orm";
import type { Db, Env } from "../../env";
import { ApiError, conflict } from "../../errors";
import { execution } from "../../db/schema";
import type { ExecutionState } from "../../db/enums";
import type { ExecutedData } from "../../engine/agentflow/types";
import { nowIso } from "../../lib/time";
import { renewEveryMs } from "./lease";
import type { ExecutionDeps, ExecutionIdentity } from "./types";

/** D1 rows stop at 2 MB; executionData must fit with the rest of the row. */
export const MAX_EXECUTION_DATA_BYTES = 1_900_000;
const utf8 = new TextEncoder();

/** Final states that come with stored messages: written by `finish` in the messages' batch. */
const WITH_MESSAGES = new Set<ExecutionState>(["FINISHED", "STOPPED"]);

/** An existing row the run writes on: its data now, and how to give it back when the run is refused (a claimed pause). */
export interface OpenedRow {
  executionData: string;
  release?: () => Promise<void>;
}

export class ExecutionCheckpointer {
  private exists: boolean;
  private writes: Promise<void> = Promise.resolve();
  private pending?: { json: string; state: ExecutionState };
  /** The first write that failed: every later checkpoint, and `settled`, answer it. */
  private failure?: unknown;
  private lostReason?: string;
  /** The newest executionData known: written, queued, or held for `finish` (what `abandon` keeps). */
  private latestJson: string;
  private checkpoints = 0;

  /** `opened`: the row exists already (accepted detached, or claimed by a resume); otherwise the first checkpoint inserts it. */
  constructor(
    private readonly db: Db,
    readonly run: ExecutionIdentity,
    private readonly opened?: OpenedRow,
  ) {
    this.exists = !!opened;
    this.latestJson = opened?.executionData ?? "[]";
  }

  /** A run refused before its first node: a pause claimed for it is given back as it was (nothing else to undo). */
  async release(): Promise<void> {
    await this.opened?.release?.();
  }

  /** Whether the runtime has checkpointed yet (a run refused before its first node has not). */
  get started(): boolean {
    return this.checkpoints > 0;
  }

  /** Why the run lost its row (TIMEOUT by a sweep, deleted), once a write found it gone. */
  get lost(): string | undefined {
    return this.lostReason;
  }

  /**
   * The checkpoint port. The write goes out beside the next node instead of before it (one D1
   * round trip less per node): writes are serialised (branches may finish together) and coalesced
   * (a write waiting its turn stores the newest snapshot); a failed write fails the run's next
   * checkpoint, and `settled`. FINISHED/STOPPED are not written here: `finish` stores them with
   * the messages, in one batch.
   */
  checkpoint(executedData: unknown[], state: ExecutionState): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    this.checkpoints++;
    this.latestJson = JSON.stringify(executedData);
    if (WITH_MESSAGES.has(state)) return Promise.resolve();
    this.pending = { json: this.latestJson, state };
    this.enqueue(() => this.flush());
    return Promise.resolve();
  }

  private enqueue(work: () => Promise<void>): void {
    this.writes = this.writes.then(async () => {
      if (this.failure) return;
      try {
        await work();
      } catch (err) {
        this.failure = err;
      }
    });
  }

  private async flush(): Promise<void> {
    const next = this.pending;
    if (!next) return; // a later call's write already stored this snapshot
    this.pending = undefined;
    if (utf8.encode(next.json).length > MAX_EXECUTION_DATA_BYTES) {
      if (this.exists) {
        await this.db
          .update(execution)
          .set({ state: "ERROR", updatedDate: nowIso() })
          .where(and(eq(execution.id, this.run.id), eq(execution.state, "INPROGRESS")));
      }
      throw new ApiError(413, `The execution's data grew past ${MAX_EXECUTION_DATA_BYTES} bytes (a D1 row's limit); the run was stopped`);
    }
    await this.write(next.json, next.state);
  }

  private async write(json: string, state: ExecutionState): Promise<void> {
    const now = nowIso();
    if (!this.exists) {
      await this.db.insert(execution).values({ ...this.run, executionData: json, state, createdDate: now, updatedDate: now });
      this.exists = true;
      return;
    }
    const done = await this.db
      .update(execution)
      .set({ executionData: json, state, updatedDate: now })
      .where(and(eq(execution.id, this.run.id), eq(execution.state, "INPROGRESS")))
      .returning({ id: execution.id });
    if (!done.length) await this.markLost();
  }

  private async markLost(): Promise<never> {
    const row = await this.db.select({ state: execution.state }).from(execution).where(eq(execution.id, this.run.id)).get();
    this.lostReason = row
      ? `Execution ${this.run.id} is ${row.state}: it stopped counting as running (no sign of life within its ` +
        `lease), so this run's results were not stored`
      : `Execution ${this.run.id} was deleted while it ran`;
    throw conflict(this.lostReason);
  }

  /**
   * Ready for `finish`: the row is inserted (when this run inserts it) and no write failed. A write
   * still in flight need not land first: it is conditional on INPROGRESS, so after `finish` it
   * changes nothing, and before it `finish` overwrites it.
   */
  async ready(): Promise<void> {
    if (!this.exists) await this.writes;
    if (this.failure) throw this.failure;
  }

  /** Waits for the writes in flight, whatever they did. */
  async drain(): Promise<void> {
    await this.writes;
  }

  /** Waits for the writes in flight; throws what failed (the row lost: 409; too large: 413). */
  async settled(): Promise<void> {
    await this.writes;
    if (this.failure) throw this.failure;
  }

  /** Ends a run that broke off outside the runtime's own handling (ERROR, or how it was stopped), keeping its newest data. */
  async abandon(state: "ERROR" | "TERMINATED" | "TIMEOUT" = "ERROR"): Promise<void> {
    await this.writes;
    if (!this.exists || this.lostReason) return;
    await this.db
      .update(execution)
      .set({ state, updatedDate: nowIso(), executionData: this.latestJson })
      .where(and(eq(execution.id, this.run.id), eq(execution.state, "INPROGRESS")))
      .catch(() => undefined);
  }

  /**
   * Renews the lease (updatedDate) while a node runs; calls `onLost` once when the row is no
   * longer this run's. Answers the function that stops the timer.
   */
  keepAlive(env: Env, onLost: (reason: string) => void): () => void {
    const timer = setInterval(() => {
      if (!this.exists || this.failure) return;
      this.enqueue(async () => {
        const done = await this.db
          .update(execution)
          .set({ updatedDate: nowIso() })
          .where(and(eq(execution.id, this.run.id), eq(execution.state, "INPROGRESS")))
          .returning({ id: execution.id });
        if (!done.length)
          await this.markLost().catch((err) => {
            onLost(this.lostReason!);
            throw err;
          });
      });
    }, renewEveryMs(env));
    return () => clearInterval(timer);
  }

  /**
   * The final write of a run that stores messages: one conditional write to `state` (put it first
   * in the batch, then pass its result to `confirm`) and the guard — true only when that write
   * happened — for the batch's other statements.
   */
  finish(executedData: unknown[], state: "FINISHED" | "STOPPED", action: unknown) {
    this.pending = undefined; // a checkpoint still waiting its turn is superseded by this write
    const now = nowIso();
    const json = JSON.stringify(executedData);
    if (utf8.encode(json).length > MAX_EXECUTION_DATA_BYTES) {
      throw new ApiError(413, `The execution's data grew past ${MAX_EXECUTION_DATA_BYTES} bytes (a D1 row's limit)`);
    }
    const values =
      state === "STOPPED"
        ? { executionData: json, state, updatedDate: now, stoppedDate: now, action: JSON.stringify(action ?? null) }
        : { executionData: json, state, updatedDate: now, action: null };
    const statement = this.exists
      ? this.db
          .update(execution)
          .set(values)
          .where(and(eq(execution.id, this.run.id), eq(execution.state, "INPROGRESS")))
          .returning({ id: execution.id })
      : this.db
          .insert(execution)
          .values({ ...this.run, ...values, createdDate: now })
          .returning({ id: execution.id });
    const unchanged = sql`${execution.state} = ${state} AND ${execution.updatedDate} = ${now}`;
    const guard: SQL = sql`EXISTS (SELECT 1 FROM ${execution} WHERE ${execution.id} = ${this.run.id} AND ${unchanged})`;
    return { statement, guard };
  }

  /** With the final write's result: throws when it found the row no longer running (nothing else was stored). */
  async confirm(written: unknown[]): Promise<void> {
    if (written.length) return;
    await this.markLost();
  }
}

/** A new run's execution: the first checkpoint inserts the row. */
export const newExecution = (deps: ExecutionDeps, run: ExecutionIdentity) => new ExecutionCheckpointer(deps.db, run);

/**
 * A detached run's execution, made when it was accepted (detached.ts `acceptDetached`): a fresh start
 * fills it; a resume claimed at acceptance continues from the pause (`executedData`).
 */
export const acceptedExecution = (deps: ExecutionDeps, run: ExecutionIdentity, executedData: ExecutedData[] = []) =>
  new ExecutionCheckpointer(deps.db, run, { executionData: JSON.stringify(executedData) });
