// The executions API (Flowise's /executions and /public-executions): list, read, share the
// recorded runs of agentflows and follow an asynchronous run's frames (deleting them: delete.ts).
// A read first expires the stale rows it is about to show (lease.ts), and wakes a stalled detached
// run it finds (wake.ts).
import { type SQL, and, count, desc, eq, gte, lte, sql } from "drizzle-orm";
import { notFound } from "../../errors";
import { chatFlow, execution } from "../../db/schema";
import type { ExecutionListInput } from "../../schemas/executions";
import { stripCredentialIds } from "../../engine/agentflow";
import { expireStaleRuns } from "./lease";
import { type ExecutionDeps, type ExecutionRow, executedDataOf } from "./types";
import { type WakeDeps, wakeIfDue } from "./wake";

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
export const inFlows = (flows: string[]) => sql`${execution.agentflowId} IN (SELECT value FROM json_each(${JSON.stringify(flows)}))`;

/** Runs of flows whose name holds `part` (any case): the Executions page's agentflow filter. */
const inFlowsNamed = (part: string) =>
  sql`${execution.agentflowId} IN (SELECT ${chatFlow.id} FROM ${chatFlow} WHERE instr(lower(${chatFlow.name}), lower(${part})) > 0)`;

/** `flows`: the agentflows the caller may see (null: all). */
export async function listExecutions(deps: ExecutionDeps, q: ExecutionListInput, flows: string[] | null = null) {
  const { db } = deps;
  await expireStaleRuns(deps);
  const where = and(
    ...([
      flows ? inFlows(flows) : undefined,
      q.agentflowId ? eq(execution.agentflowId, q.agentflowId) : undefined,
      q.sessionId !== undefined ? eq(execution.sessionId, q.sessionId) : undefined,
      // A literal part of the name (instr, not LIKE: a % or _ typed in the filter means itself).
      q.agentflowName ? inFlowsNamed(q.agentflowName) : undefined,
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

async function findExecution(deps: ExecutionDeps, id: string): Promise<ExecutionRow> {
  await expireStaleRuns(deps, [id]);
  const row = await deps.db.select().from(execution).where(eq(execution.id, id)).get();
  if (!row) throw notFound(`Execution ${id} not found`);
  return row;
}

/** A detached run found stalled by this read is woken in the background (wake.ts). */
export async function getExecution(deps: WakeDeps, id: string) {
  const row = await findExecution(deps, id);
  wakeIfDue(deps, row);
  return presentExecution(row);
}

export async function updateExecution(deps: ExecutionDeps, id: string, patch: { isPublic: boolean }) {
  await expireStaleRuns(deps, [id]);
  // updatedDate is left alone: it is the run's lease and its last sign of life, not the share flag's.
  const [row] = await deps.db.update(execution).set({ isPublic: patch.isPublic }).where(eq(execution.id, id)).returning();
  if (!row) throw notFound(`Execution ${id} not found`);
  return presentExecution(row);
}

/** The agentflow an execution belongs to; undefined when the id names none. */
export async function agentflowOf(deps: ExecutionDeps, id: string): Promise<string | undefined> {
  return (await deps.db.select({ flow: execution.agentflowId }).from(execution).where(eq(execution.id, id)).get())?.flow;
}

/** A shared run, for anyone with its id: 404 unless made public; credential ids removed. */
export async function getPublicExecution(deps: ExecutionDeps, id: string) {
  const row = await findExecution(deps, id).catch(() => undefined);
  if (!row?.isPublic) throw notFound(`Execution ${id} not found`);
  const data = executedDataOf(row.executionData) ?? [];
  return { ...presentExecution(row), executionData: JSON.stringify(stripCredentialIds(data)) };
}

/**
 * The executions `ids` name, as Flowise's test chat history carries them on each answer (its
 * chat_message.execution relation): the page draws an answer's "Process Flow" from `executionData`.
 * Credential ids removed, as on a shared run.
 */
export async function executionsByIds(deps: ExecutionDeps, ids: string[]) {
  if (!ids.length) return new Map<string, ReturnType<typeof presentExecution>>();
  const rows = await deps.db
    .select()
    .from(execution)
    .where(sql`${execution.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`);
  return new Map(
    rows.map((r) => [
      r.id,
      { ...presentExecution(r), executionData: JSON.stringify(stripCredentialIds(executedDataOf(r.executionData) ?? [])) },
    ]),
  );
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
