// Deleting executions: by id (DELETE /executions, a schedule's trigger logs with their executions)
// or a whole flow's (its deletion). Their messages stay, no longer pointing at them (as Flowise
// does); the files asynchronous runs kept in R2 go after the rows (through waitUntil, so a failure
// there never leaves a row pointing at nothing).
import { and, eq, inArray } from "drizzle-orm";
import { badRequest, notFound } from "../../errors";
import { chatMessage, execution } from "../../db/schema";
import type { Db } from "../../env";
import { D1_MAX_PARAMS, chunk } from "../../lib/chunk";
import { deleteExecutionFiles } from "../files";
import { inFlows } from "./api";

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

/**
 * A flow's executions, deleted in the flow's own deletion batch: the statement to put in it, and
 * what to call once it landed (the files of its asynchronous runs removed in the background).
 */
export async function flowExecutionsDeletion(deps: ExecutionDeleteDeps, flowId: string) {
  const { db } = deps;
  const detached = await db
    .select({ id: execution.id })
    .from(execution)
    .where(and(eq(execution.agentflowId, flowId), eq(execution.detached, true)))
    .all();
  return {
    statement: db.delete(execution).where(eq(execution.agentflowId, flowId)),
    removeFiles: () => {
      if (detached.length)
        deps.waitUntil(
          deleteExecutionFiles(
            deps.env.FILES,
            detached.map((r) => r.id),
          ),
        );
    },
  };
}
