// The two messages an agentflow run stores (on success and on pause only), written in the same D1
// batch as the execution's final state and only if that write happened (`guard`): a run whose row
// was lost or that failed stores nothing.
import type { BatchItem } from "drizzle-orm/batch";
import { type SQL, and, eq, getTableColumns, isNotNull, sql } from "drizzle-orm";
import type { Db } from "../../env";
import type { ChatType } from "../../db/enums";
import { chatMessage } from "../../db/schema";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";

export interface AgentflowExchange {
  chatflowid: string;
  /** Who started the run (the trigger's chatType): on both messages. */
  chatType: ChatType;
  chatId: string;
  sessionId: string;
  executionId: string;
  /** What the user sent: the question, the form as "k: v" lines, or the resume feedback. */
  userContent: string;
  startedAt: string;
  answer: string;
  fileUploads?: unknown[];
  leadEmail?: string | null;
  sourceDocuments?: unknown[];
  usedTools?: unknown[];
  artifacts?: unknown[];
  /** The pending action when the run paused. */
  action?: unknown;
  /** Agentflow V1: one entry per agent step. */
  agentReasoning?: unknown[];
  /** The follow-up questions, the JSON string stored as is. */
  followUpPrompts?: string;
  /** A resume: the paused run's message stops offering its buttons. */
  resumed: boolean;
}

const asJson = (value: unknown) =>
  value === undefined || value === null || (Array.isArray(value) && !value.length) ? null : JSON.stringify(value);

const COLUMNS = Object.keys(getTableColumns(chatMessage)) as (keyof typeof chatMessage.$inferInsert)[];

/**
 * INSERT … SELECT … WHERE guard: the row goes in only when the guard holds inside the batch.
 * (Drizzle lists every column, in the table's order, before a raw SELECT.)
 */
function guardedInsert(db: Db, values: Partial<Record<(typeof COLUMNS)[number], string | null>>, guard: SQL) {
  return db.insert(chatMessage).select(
    sql`SELECT ${sql.join(
      COLUMNS.map((c) => sql`${values[c] ?? null}`),
      sql`, `,
    )} WHERE ${guard}`,
  );
}

/** The statements storing a run's exchange; the API message id is chosen by the caller (it is `$flow.apiMessageId`). */
export function exchangeStatements(db: Db, x: AgentflowExchange, apiMessageId: string, guard: SQL) {
  const common = {
    chatflowid: x.chatflowid,
    chatId: x.chatId,
    sessionId: x.sessionId,
    executionId: x.executionId,
    chatType: x.chatType,
    memoryType: null,
  };
  const statements: BatchItem<"sqlite">[] = [
    guardedInsert(
      db,
      {
        ...common,
        id: newId(),
        role: "userMessage",
        content: x.userContent,
        createdDate: x.startedAt,
        fileUploads: asJson(x.fileUploads),
        leadEmail: x.leadEmail ?? null,
      },
      guard,
    ),
    guardedInsert(
      db,
      {
        ...common,
        id: apiMessageId,
        role: "apiMessage",
        content: x.answer,
        createdDate: nowIso(),
        sourceDocuments: asJson(x.sourceDocuments),
        usedTools: asJson(x.usedTools),
        artifacts: asJson(x.artifacts),
        agentReasoning: asJson(x.agentReasoning),
        action: x.action ? JSON.stringify(x.action) : null,
        followUpPrompts: x.followUpPrompts ?? null,
      },
      guard,
    ),
  ];
  if (x.resumed) {
    statements.unshift(
      db
        .update(chatMessage)
        .set({ action: null })
        .where(and(eq(chatMessage.executionId, x.executionId), isNotNull(chatMessage.action), guard)),
    );
  }
  return statements;
}
