// Writing one agentflow run into its execution row: a checkpoint after every node (one conditional
// UPDATE, the row inserted by the first one), the lease renewed while a node runs, and the final
// state flipped in the same D1 batch that stores the run's messages (execution-messages.ts).
import { type SQL, and, eq, sql } from "drizzle-orm";
import type { Db, Env } from "../env";
import { ApiError, conflict } from "../errors";
import { execution } from "../db/schema";
import type { ExecutionState } from "../db/enums";
import { nowIso } from "../lib/time";
import { renewEveryMs } from "./execution-lease";

/** D1 rows stop at 2 MB; executionData must fit with the rest of the row. */
export const MAX_EXECUTION_DATA_BYTES = 1_900_000;
const utf8 = new TextEncoder();

export interface RunIdentity {
  id: string;
  agentflowId: string;
  sessionId: string;
}

/** Final states that come with stored messages: written by `finish` in the messages' batch. */
const WITH_MESSAGES = new Set<ExecutionState>(["FINISHED", "STOPPED"]);

export class ExecutionRecorder {
  private exists: boolean;
  private writes: Promise<void> = Promise.resolve();
  private pending?: { json: string; state: ExecutionState };
  private lostReason?: string;
  /** The last executionData written (or adopted on resume): what a failed write falls back to. */
  private lastJson: string;
  private checkpoints = 0;

  /** `claimed`: the row exists already (a resume claimed it); otherwise the first checkpoint inserts it. */
  constructor(private readonly db: Db, readonly run: RunIdentity, claimed?: { executionData: string }) {
    this.exists = !!claimed;
    this.lastJson = claimed?.executionData ?? "[]";
  }

  /** Whether the runtime has checkpointed yet (a run refused before its first node has not). */
  get started(): boolean {
    return this.checkpoints > 0;
  }

  /** Marks a run that broke off outside the runtime's own error handling ERROR, keeping its data. */
  async abandon(): Promise<void> {
    await this.writes;
    if (!this.exists || this.lostReason) return;
    await this.db.update(execution).set({ state: "ERROR", updatedDate: nowIso() })
      .where(and(eq(execution.id, this.run.id), eq(execution.state, "INPROGRESS"))).catch(() => undefined);
  }

  /** Why the run lost its row (TIMEOUT by a sweep, deleted), once a write found it gone. */
  get lost(): string | undefined {
    return this.lostReason;
  }

  /**
   * The checkpoint port. Writes are serialised (branches may finish together) and coalesced: a
   * write waiting its turn stores the newest snapshot. FINISHED/STOPPED keep the row INPROGRESS
   * here; `finish` flips them together with the messages.
   */
  checkpoint(executedData: unknown[], state: ExecutionState): Promise<void> {
    this.checkpoints++;
    this.pending = { json: JSON.stringify(executedData), state };
    const turn = this.writes.then(() => this.flush());
    this.writes = turn.catch(() => undefined);
    return turn;
  }

  private async flush(): Promise<void> {
    const next = this.pending;
    if (!next) return; // a later call's write already stored this snapshot
    this.pending = undefined;
    if (this.lostReason) throw conflict(this.lostReason);
    const state = WITH_MESSAGES.has(next.state) ? "INPROGRESS" : next.state;
    if (utf8.encode(next.json).length > MAX_EXECUTION_DATA_BYTES) {
      await this.write(this.lastJson, "ERROR");
      throw new ApiError(413, `The execution's data grew past ${MAX_EXECUTION_DATA_BYTES} bytes (a D1 row's limit); the run was stopped`);
    }
    await this.write(next.json, state);
    this.lastJson = next.json;
  }

  private async write(json: string, state: ExecutionState): Promise<void> {
    const now = nowIso();
    if (!this.exists) {
      await this.db.insert(execution).values({ ...this.run, executionData: json, state, createdDate: now, updatedDate: now });
      this.exists = true;
      return;
    }
    const done = await this.db.update(execution).set({ executionData: json, state, updatedDate: now })
      .where(and(eq(execution.id, this.run.id), eq(execution.state, "INPROGRESS"))).returning({ id: execution.id });
    if (!done.length) await this.markLost();
  }

  private async markLost(): Promise<never> {
    const row = await this.db.select({ state: execution.state }).from(execution).where(eq(execution.id, this.run.id)).get();
    this.lostReason = row
      ? `Execution ${this.run.id} is ${row.state}: it stopped counting as running (no sign of life within its lease), so this run's results were not stored`
      : `Execution ${this.run.id} was deleted while it ran`;
    throw conflict(this.lostReason);
  }

  /**
   * Renews the lease (updatedDate) while a node runs; calls `onLost` once when the row is no
   * longer this run's. Answers the function that stops the timer.
   */
  keepAlive(env: Env, onLost: (reason: string) => void): () => void {
    const timer = setInterval(() => {
      if (!this.exists || this.lostReason) return;
      this.writes = this.writes.then(async () => {
        const done = await this.db.update(execution).set({ updatedDate: nowIso() })
          .where(and(eq(execution.id, this.run.id), eq(execution.state, "INPROGRESS"))).returning({ id: execution.id });
        if (!done.length) await this.markLost().catch(() => onLost(this.lostReason!));
      }).catch(() => undefined);
    }, renewEveryMs(env));
    return () => clearInterval(timer);
  }

  /** Waits for the writes in flight; throws when the run lost its row. */
  async settled(): Promise<void> {
    await this.writes;
    if (this.lostReason) throw conflict(this.lostReason);
  }

  /**
   * The final write of a run that stores messages: one conditional write to `state` (put it first
   * in the batch, then pass its result to `confirm`) and the guard — true only when that write
   * happened — for the batch's other statements.
   */
  finish(executedData: unknown[], state: "FINISHED" | "STOPPED", action: unknown) {
    const now = nowIso();
    const json = JSON.stringify(executedData);
    if (utf8.encode(json).length > MAX_EXECUTION_DATA_BYTES) {
      throw new ApiError(413, `The execution's data grew past ${MAX_EXECUTION_DATA_BYTES} bytes (a D1 row's limit)`);
    }
    const values = state === "STOPPED"
      ? { executionData: json, state, updatedDate: now, stoppedDate: now, action: JSON.stringify(action ?? null) }
      : { executionData: json, state, updatedDate: now, action: null };
    const statement = this.exists
      ? this.db.update(execution).set(values).where(and(eq(execution.id, this.run.id), eq(execution.state, "INPROGRESS"))).returning({ id: execution.id })
      : this.db.insert(execution).values({ ...this.run, ...values, createdDate: now }).returning({ id: execution.id });
    const guard: SQL = sql`EXISTS (SELECT 1 FROM ${execution} WHERE ${execution.id} = ${this.run.id} AND ${execution.state} = ${state} AND ${execution.updatedDate} = ${now})`;
    return { statement, guard };
  }

  /** With the final write's result: throws when it found the row no longer running (nothing else was stored). */
  async confirm(written: unknown[]): Promise<void> {
    if (written.length) return;
    await this.markLost();
  }
}
