// A document store's loaders as rows (document_store_loader): read back as Flowise's loader
// entries, and written by conditional statements — an insert only into a store that exists,
// content only while holding the loader's lease — so concurrent upserts each keep their own.
import { and, asc, eq, inArray, isNull, or } from "drizzle-orm";
import type { Db } from "../../env";
import { documentStoreLoader } from "../../db/schema";
import { D1_MAX_PARAMS, chunk } from "../../lib/chunk";
import { nowIso } from "../../lib/time";
import type { Stmt } from "../../providers/vectorstores/d1-json";
import { type LoaderLease, leaseState, stoppedMessage } from "./lease";
import { type StreamProgress, parseProgress, publicProgress } from "./progress";
import type { LoaderEntry } from "./types";
import type { Deps } from "../deps";

const L = documentStoreLoader;
export type LoaderRow = typeof L.$inferSelect;

function parsed<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return (JSON.parse(text) as T) ?? fallback;
  } catch {
    return fallback;
  }
}

/** A row as the entry the store's `loaders` JSON string lists; dead work reads STALE with an error. */
export function entryOf(row: LoaderRow, now: number): LoaderEntry {
  const dead = leaseState(row, now) === "dead";
  const entry: LoaderEntry = {
    id: row.id,
    loaderId: row.loaderId,
    loaderName: row.loaderName,
    loaderConfig: parsed(row.loaderConfig, {}),
    splitterId: row.splitterId ?? undefined,
    splitterName: row.splitterName ?? undefined,
    splitterConfig: row.splitterConfig === null ? undefined : parsed(row.splitterConfig, {}),
    totalChunks: row.totalChunks,
    totalChars: row.totalChars,
    status: dead ? "STALE" : row.status,
    files: parsed(row.files, []),
  };
  const error = dead ? (row.error ?? stoppedMessage(row.leaseUntil)) : row.error;
  if (error) entry.error = error;
  const progress = parseProgress(row.progress);
  if (progress) entry.progress = publicProgress(progress);
  return entry;
}

/** A store's loader rows, in the order they were added. */
export const loaderRowsQuery = (db: Db, storeId: string) =>
  db.select().from(L).where(eq(L.storeId, storeId)).orderBy(asc(L.position), asc(L.id));

/** Loader rows of several stores, by store id. */
export async function loaderRowsOf({ db }: Deps<"db">, storeIds: string[]): Promise<Map<string, LoaderRow[]>> {
  const out = new Map<string, LoaderRow[]>(storeIds.map((id) => [id, []]));
  for (const part of chunk(storeIds, D1_MAX_PARAMS)) {
    const rows = await db.select().from(L).where(inArray(L.storeId, part)).orderBy(asc(L.position), asc(L.id)).all();
    for (const row of rows) out.get(row.storeId)?.push(row);
  }
  return out;
}

const contentOf = (e: LoaderEntry) => ({
  loaderId: e.loaderId,
  loaderName: e.loaderName,
  loaderConfig: JSON.stringify(e.loaderConfig ?? {}),
  splitterId: e.splitterId ?? null,
  splitterName: e.splitterName ?? null,
  splitterConfig: e.splitterConfig === undefined ? null : JSON.stringify(e.splitterConfig),
  totalChunks: e.totalChunks,
  totalChars: e.totalChars,
  status: e.status,
  error: e.error ?? null,
  files: JSON.stringify(e.files ?? []),
});

/** A new loader, holding `lease` from the start (at the end of the store's list); nothing when the store is gone. */
export function insertLoader(entry: LoaderEntry, lease: LoaderLease, leaseUntil: number): Stmt {
  const c = contentOf(entry);
  const now = nowIso();
  return {
    sql:
      `INSERT INTO document_store_loader (id, storeId, position, loaderId, loaderName, loaderConfig, ` +
      `splitterId, splitterName, splitterConfig, totalChunks, totalChars, status, error, files, leaseId, ` +
      `leaseUntil, createdDate, updatedDate)
      SELECT ?, ?, COALESCE((SELECT MAX(position) FROM document_store_loader WHERE storeId = ?), 0) + 1, ?, ?, ?, ` +
      `?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
      WHERE EXISTS (SELECT 1 FROM document_store WHERE id = ?)`,
    params: [
      entry.id,
      lease.storeId,
      lease.storeId,
      c.loaderId,
      c.loaderName,
      c.loaderConfig,
      c.splitterId,
      c.splitterName,
      c.splitterConfig,
      c.totalChunks,
      c.totalChars,
      c.status,
      c.error,
      c.files,
      lease.id,
      leaseUntil,
      now,
      now,
      lease.storeId,
    ],
  };
}

/** An existing loader's new content (its totals kept unless `withTotals`), only while `lease` holds it. */
export function writeLoader(db: Db, entry: LoaderEntry, lease: LoaderLease, leaseUntil: number, withTotals = true): Stmt {
  const { totalChunks, totalChars, ...rest } = contentOf(entry);
  return (
    db
      .update(L)
      // A streamed run's progress belongs to that run: a new one writes its own.
      .set({ ...rest, ...(withTotals ? { totalChunks, totalChars } : {}), progress: null, leaseUntil, updatedDate: nowIso() })
      .where(and(eq(L.id, entry.id), eq(L.storeId, lease.storeId), eq(L.leaseId, lease.id)))
      .toSQL()
  );
}

/**
 * A queued loader that cannot be processed: STALE with the error, its lease given back. Only while
 * it is still SYNCING under this lease (or none): one already processed, or taken over, is left alone.
 */
export async function failQueuedLoader({ db }: Deps<"db">, loaderId: string, leaseId: string | undefined, error: string): Promise<void> {
  await db
    .update(L)
    .set({ status: "STALE", error, leaseId: null, leaseUntil: null, updatedDate: nowIso() })
    .where(and(eq(L.id, loaderId), eq(L.status, "SYNCING"), leaseId ? or(eq(L.leaseId, leaseId), isNull(L.leaseId)) : isNull(L.leaseId)))
    .run();
}

/** A queued loader whose attempt failed and will be retried: its lease lasts until the retry can run. */
export async function holdForRetry({ db }: Deps<"db">, loaderId: string, leaseId: string, leaseUntil: number): Promise<void> {
  await db
    .update(L)
    .set({ leaseUntil })
    .where(and(eq(L.id, loaderId), eq(L.leaseId, leaseId)))
    .run();
}

/**
 * A streamed run's window on its loader's row: the totals grow by the window's chunks, the
 * progress moves on and the lease is renewed; only while `lease` holds the loader.
 */
export function windowRow(lease: LoaderLease, progress: StreamProgress, added: { chunks: number; chars: number }): Stmt {
  return {
    sql:
      `UPDATE document_store_loader SET totalChunks = totalChunks + ?, totalChars = totalChars + ?, progress = ` +
      `?, leaseUntil = ?, updatedDate = ?
      WHERE id = ? AND storeId = ? AND leaseId = ?`,
    params: [added.chunks, added.chars, JSON.stringify(progress), lease.until(), nowIso(), lease.loaderId, lease.storeId, lease.id],
  };
}

/** A streamed run's end on its loader's row: `status` (SYNC, or STALE with `error`), files as listed, progress cleared unless kept. */
export function endRow(
  lease: LoaderLease,
  end: { status: "SYNC" | "STALE"; error?: string; files?: string; keepProgress?: boolean; emptied?: boolean },
): Stmt {
  return {
    sql: `UPDATE document_store_loader SET status = ?, error = ?, files = COALESCE(?, files), progress = CASE WHEN ? THEN progress END,
      totalChunks = CASE WHEN ? THEN 0 ELSE totalChunks END, totalChars = CASE WHEN ? THEN 0 ELSE totalChars END, updatedDate = ?
      WHERE id = ? AND storeId = ? AND leaseId = ?`,
    params: [
      end.status,
      end.error ?? null,
      end.files ?? null,
      end.keepProgress ? 1 : 0,
      end.emptied ? 1 : 0,
      end.emptied ? 1 : 0,
      nowIso(),
      lease.loaderId,
      lease.storeId,
      lease.id,
    ],
  };
}

/** Whether store `storeId` has a loader `loaderId`. */
export async function loaderExists({ db }: Deps<"db">, storeId: string, loaderId: string): Promise<boolean> {
  return !!(await db
    .select({ id: L.id })
    .from(L)
    .where(and(eq(L.id, loaderId), eq(L.storeId, storeId)))
    .get());
}
