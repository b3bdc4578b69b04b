// The executions API (Flowise's /executions and /public-executions): read, share, delete the
// recorded runs of agentflows. Runs themselves are written by execution-runs.ts.
import { type SQL, and, count, desc, eq, gte, inArray, lte, sql } from "drizzle-orm";
import type { Db, Env } from "../env";
import { badRequest, notFound } from "../errors";
import { chatFlow, chatMessage, execution } from "../db/schema";
import type { ExecutionListInput } from "../schemas/executions";
import { D1_MAX_PARAMS, chunk } from "../lib/chunk";
import { stripCredentialIds } from "../engine/agentflow";
import type { ExecutedData } from "../engine/agentflow/types";
import { type WakeDeps, wakeIfDue } from "./detached-wake";
import { expireStaleRuns } from "./execution-lease";
import { deleteExecutionFiles } from "./files";

export type ExecutionRow = typeof execution.$inferSelect;

/**
 * An execution as the API shows it: Flowise's fields, and for an asynchronous run `result` (the
 * answer a synchronous prediction would have given) once it ended, and `error` when it failed.
 */
export function presentExecution(row: ExecutionRow) {
  const { detached: _detached, wokenAt: _wokenAt, result, error, ...shown } = row;
  let parsed: unknown;
  try {
    parsed = result === null ? undefined : JSON.parse(result);
  } catch {
    parsed = undefined;
  }
  return { ...shown, ...(parsed !== undefined ? { result: parsed } : {}), ...(error !== null ? { error } : {}) };
}

// Id lists go as one JSON parameter (json_each), so a key limited to many chatflows stays within D1's parameter limit.
const inFlows = (flows: string[]) => sql`${execution.agentflowId} IN (SELECT value FROM json_each(${JSON.stringify(flows)}))`;

/** `flows`: the agentflows the caller may see (null: all). */
export async function listExecutions(db: Db, env: Env, q: ExecutionListInput, flows: string[] | null = null) {
  await expireStaleRuns(db, env);
  const where = and(
    ...([
      flows ? inFlows(flows) : undefined,
      q.agentflowId ? eq(execution.agentflowId, q.agentflowId) : undefined,
      q.sessionId !== undefined ? eq(execution.sessionId, q.sessionId) : undefined,
      q.state ? eq(execution.state, q.state) : undefined,
      q.startDate ? gte(execution.createdDate, q.startDate) : undefined,
      q.endDate ? lte(execution.createdDate, q.endDate) : undefined,
    ].filter(Boolean) as SQL[]),
  );
  // Flowise's defaults: page 1, 12 per page, most recently updated first.
  const limit = q.limit ?? 12;
  const offset = ((q.page ?? 1) - 1) * limit;
  const [rows, totals] = await db.batch([
    db
      .select({ row: execution, flowName: chatFlow.name })
      .from(execution)
      .leftJoin(chatFlow, eq(chatFlow.id, execution.agentflowId))
      .where(where)
      .orderBy(desc(execution.updatedDate), desc(execution.id))
      .limit(limit)
      .offset(offset),
    db.select({ total: count() }).from(execution).where(where),
  ]);
  return {
    data: rows.map((r) => ({
      ...presentExecution(r.row),
      agentflow: r.flowName === null ? null : { id: r.row.agentflowId, name: r.flowName },
    })),
    total: totals[0]?.total ?? 0,
  };
}

async function findExecution(db: Db, env: Env, id: string): Promise<ExecutionRow> {
  await expireStaleRuns(db, env, [id]);
  const row = await db.select().from(execution).where(eq(execution.id, id)).get();
  if (!row) throw notFound(`Execution ${id} not found`);
  return row;
}

/** A detached run found stalled by this read is woken in the background (detached-wake.ts). */
export async function getExecution(deps: WakeDeps, id: string) {
  const row = await findExecution(deps.db, deps.env, id);
  wakeIfDue(deps, row);
  return presentExecution(row);
}

export async function updateExecution(db: Db, env: Env, id: string, patch: { isPublic: boolean }) {
  await expireStaleRuns(db, env, [id]);
  // updatedDate is left alone: it is the run's lease and its last sign of life, not the share flag's.
  const [row] = await db.update(execution).set({ isPublic: patch.isPublic }).where(eq(execution.id, id)).returning();
  if (!row) throw notFound(`Execution ${id} not found`);
  return presentExecution(row);
}

/** The agentflow an execution belongs to; undefined when the id names none. */
export async function agentflowOf(db: Db, id: string): Promise<string | undefined> {
  return (await db.select({ flow: execution.agentflowId }).from(execution).where(eq(execution.id, id)).get())?.flow;
}

/** What deleting executions needs: the database, and R2 with waitUntil to remove their files after the rows. */
export interface ExecutionDeleteDeps {
  db: Db;
  env: { FILES: R2Bucket };
  waitUntil(work: Promise<unknown>): void;
}

/**
 * Deletes executions (of the agentflows in `flows`, when given); their messages stay, no longer
 * pointing at them (as Flowise does). The files asynchronous runs kept in R2 go after the rows.
 */
export async function deleteExecutions(
  deps: ExecutionDeleteDeps,
  ids: string[],
  flows: string[] | null = null,
): Promise<{ deleted: number }> {
  const { db } = deps;
  if (!ids.length) throw badRequest("No execution IDs provided");
  if (flows) {
    const kept: string[] = [];
    for (const part of chunk([...new Set(ids)], D1_MAX_PARAMS - 2)) {
      const rows = await db
        .select({ id: execution.id })
        .from(execution)
        .where(and(inArray(execution.id, part), inFlows(flows)))
        .all();
      kept.push(...rows.map((r) => r.id));
    }
    if (!kept.length) return { deleted: 0 };
    ids = kept;
  }
  const statements = chunk([...new Set(ids)], D1_MAX_PARAMS - 1).flatMap((part) => [
    db.update(chatMessage).set({ executionId: null }).where(inArray(chatMessage.executionId, part)),
    db.delete(execution).where(inArray(execution.id, part)).returning({ id: execution.id, detached: execution.detached }),
  ]);
  const results = await db.batch(statements as [(typeof statements)[number], ...typeof statements]);
  const deleted = results.filter((_, i) => i % 2 === 1).flat() as Array<{ id: string; detached: boolean }>;
  // Only asynchronous runs keep files.
  const withFiles = deleted.filter((r) => r.detached).map((r) => r.id);
  if (withFiles.length) deps.waitUntil(deleteExecutionFiles(deps.env.FILES, withFiles));
  return { deleted: deleted.length };
}

export async function deleteExecution(deps: ExecutionDeleteDeps, id: string): Promise<{ deleted: number }> {
  const done = await deleteExecutions(deps, [id]);
  if (!done.deleted) throw notFound(`Execution ${id} not found`);
  return done;
}

/** A shared run, for anyone with its id: 404 unless made public; credential ids removed. */
export async function getPublicExecution(db: Db, env: Env, id: string) {
  const row = await findExecution(db, env, id).catch(() => undefined);
  if (!row?.isPublic) throw notFound(`Execution ${id} not found`);
  let data: ExecutedData[];
  try {
    const parsed = JSON.parse(row.executionData);
    data = Array.isArray(parsed) ? parsed : [];
  } catch {
    data = [];
  }
  return { ...presentExecution(row), executionData: JSON.stringify(stripCredentialIds(data)) };
}

/**
 * An asynchronous run's event log (its ExecutionEvents object): the frames after `lastEventId`
 * (a Last-Event-ID header; none: from the start), then live ones until `end`. 404 for an execution
 * that was not started with async: true (a synchronous run's frames went to its caller). A stalled
 * run is woken in the background.
 */
export async function executionEvents(
  deps: WakeDeps,
  id: string,
  lastEventId: string | undefined,
  signal?: AbortSignal,
): Promise<ReadableStream<Uint8Array>> {
  const { db, env } = deps;
  const row = await db
    .select({ detached: execution.detached, state: execution.state, updatedDate: execution.updatedDate, wokenAt: execution.wokenAt })
    .from(execution)
    .where(eq(execution.id, id))
    .get();
  if (!row) throw notFound(`Execution ${id} not found`);
  if (!row.detached) throw notFound(`Execution ${id} has no event log: only runs started with async: true keep one`);
  // A follower of a run a restart cut off would wait forever: the read wakes it.
  wakeIfDue(deps, { ...row, id });
  const after = /^\d{1,15}$/.test(lastEventId?.trim() ?? "") ? lastEventId!.trim() : "0";
  const stub = env.EXECUTION_EVENTS.get(env.EXECUTION_EVENTS.idFromName(id));
  const res = await stub.fetch(`https://execution-events/?after=${after}`, { signal });
  return res.body ?? new ReadableStream();
}
