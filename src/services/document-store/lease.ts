// Leases on document store loaders: how a crashed upsert is told apart from a running one.
// Whoever processes a loader holds its lease (`leaseId` on the loader's row) and renews
// `leaseUntil` on a heartbeat while it works; every write it makes is conditional on still holding
// it. A worker that dies stops renewing: once `leaseUntil` has passed with the work unfinished,
// the loader reads STALE with an error, and a refresh or a new upsert may take the lease over.
import { and, eq, isNull, lt, or } from "drizzle-orm";
import { configOf } from "../../config";
import type { Db, Env } from "../../env";
import { documentStoreLoader } from "../../db/schema";
import type { DocumentStoreStatus } from "../../db/enums";
import { conflict, notFound } from "../../errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { runBatch } from "../../providers/vectorstores/d1-json";

const L = documentStoreLoader;
/** A queued upsert waits for the queue's consumer (and its retries) before it can heartbeat. */
const QUEUED_FACTOR = 5;

/** How long a lease lasts without a heartbeat (UPSERT_LEASE_SECONDS). */
export const upsertLeaseMs = (env: Env): number => configOf(env).UPSERT_LEASE_SECONDS * 1000;

export const queuedUpsertLeaseMs = (env: Env): number => upsertLeaseMs(env) * QUEUED_FACTOR;

/** The error a loader shows once the worker processing it stopped renewing its lease. */
export const stoppedMessage = (leaseUntil: number | null) =>
  `The upsert of this loader stopped before it finished (its worker stopped answering${
    leaseUntil ? ` by ${new Date(leaseUntil).toISOString()}` : ""
  }): refresh the store or upsert the loader again`;

/** A loader's lease at `now`: held by live work, run out with the work unfinished, or none. */
export function leaseState(
  row: { leaseId: string | null; leaseUntil: number | null; status: string },
  now: number,
): "live" | "dead" | "none" {
  if (row.leaseId !== null && row.leaseUntil !== null && row.leaseUntil >= now) return "live";
  // A lease that ran out, or a loader left SYNCING with no lease at all (a version before leases).
  if (row.leaseId !== null || row.status === "SYNCING") return "dead";
  return "none";
}

/** SQL (for raw statements) that is true while `leaseId` holds loader `loaderId`: bind both, in that order. */
export const HOLDS_LEASE = "EXISTS (SELECT 1 FROM document_store_loader WHERE id = ? AND leaseId = ?)";

/** One upsert's lease on one loader: taken, renewed on a heartbeat while working, given back. */
export class LoaderLease {
  readonly id: string;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly db: Db,
    readonly storeId: string,
    readonly loaderId: string,
    readonly ms: number,
    id?: string,
  ) {
    this.id = id ?? newId();
  }

  until(now = Date.now()): number {
    return now + this.ms;
  }

  /** Takes an existing loader's lease if it is free, already ours, or run out; 404 / 409 otherwise. */
  async claim(): Promise<void> {
    const now = Date.now();
    const r = await this.db
      .update(L)
      .set({ leaseId: this.id, leaseUntil: this.until(now) })
      .where(
        and(eq(L.id, this.loaderId), eq(L.storeId, this.storeId), or(isNull(L.leaseId), eq(L.leaseId, this.id), lt(L.leaseUntil, now))),
      )
      .run();
    if (r.meta.changes) return;
    const held = await this.db
      .select({ leaseUntil: L.leaseUntil })
      .from(L)
      .where(and(eq(L.id, this.loaderId), eq(L.storeId, this.storeId)))
      .get();
    if (!held) throw notFound(`Document loader ${this.loaderId} not found in document store ${this.storeId}`);
    throw conflict(
      `Document loader ${this.loaderId} is being processed by another upsert (its lease runs ` +
        `until ${new Date(held.leaseUntil ?? now).toISOString()} unless renewed): try again once the store is no longer UPSERTING`,
    );
  }

  /** The loader's row as it is now (its lease holder), or undefined once the loader is deleted. */
  holder(): Promise<{ leaseId: string | null } | undefined> {
    return this.db
      .select({ leaseId: L.leaseId })
      .from(L)
      .where(and(eq(L.id, this.loaderId), eq(L.storeId, this.storeId)))
      .get();
  }

  /** Renews the lease every quarter of its length until released. */
  beat(): this {
    this.timer ??= setInterval(
      () => {
        this.renew().catch(() => undefined); // a failed renewal is retried on the next beat
      },
      Math.max(50, Math.floor(this.ms / 4)),
    );
    return this;
  }

  /** Pushes the lease's end out again (while it is still ours: a lost lease is noticed on release). */
  async renew(): Promise<void> {
    await this.db
      .update(L)
      .set({ leaseUntil: this.until() })
      .where(and(eq(L.id, this.loaderId), eq(L.leaseId, this.id)))
      .run();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Gives the lease back, setting the store's status with it when given (only while still held).
   * Answers whether it was still held: false means someone else took the loader over, or deleted it.
   */
  async release(storeStatus?: DocumentStoreStatus): Promise<boolean> {
    this.stop();
    const now = nowIso();
    const [first, second] = await runBatch(this.db, [
      ...(storeStatus
        ? [
            {
              sql: `UPDATE document_store SET status = ?, updatedDate = ? WHERE id = ? AND ${HOLDS_LEASE}`,
              params: [storeStatus, now, this.storeId, this.loaderId, this.id],
            },
          ]
        : []),
      {
        sql: "UPDATE document_store_loader SET leaseId = NULL, leaseUntil = NULL WHERE id = ? AND leaseId = ?",
        params: [this.loaderId, this.id],
      },
    ]);
    return ((second ?? first).meta.changes ?? 0) > 0;
  }
}
