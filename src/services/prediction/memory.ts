import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../../env";
import { chatMessage } from "../../db/schema";
import type { ChatTurn, SourceDocument, UsedTool } from "../../engine/types";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";

/**
 * Earlier turns of (chatflow, session), oldest first, with the request's `history` before them.
 * `limit` keeps only the most recent turns (bufferWindowMemory's k exchanges = 2k messages).
 */
export async function loadSessionMemory(db: Db, chatflowid: string, sessionId: string, history: ChatTurn[], limit?: number): Promise<ChatTurn[]> {
  const rows = await db
    .select({ role: chatMessage.role, content: chatMessage.content })
    .from(chatMessage)
    .where(and(eq(chatMessage.chatflowid, chatflowid), eq(chatMessage.sessionId, sessionId)))
    .orderBy(desc(chatMessage.createdDate))
    .limit(limit ?? 10_000)
    .all();
  const turns = [...history, ...rows.reverse()];
  return limit ? turns.slice(-limit) : turns;
}

export interface Exchange {
  chatflowid: string;
  chatId: string;
  sessionId: string;
  memoryType: string | null;
  question: string;
  answer: string;
  startedAt: string;
  fileUploads?: unknown[];
  leadEmail?: string | null;
  sourceDocuments?: SourceDocument[];
  usedTools?: UsedTool[];
  form?: unknown;
  humanInput?: unknown;
}

const asJson = (value: unknown) => (value === undefined || value === null || (Array.isArray(value) && !value.length) ? null : JSON.stringify(value));

/** Stores the question then the answer in one batch, after a successful run. Answers the API message id. */
export async function storeExchange(db: Db, x: Exchange): Promise<string> {
  const apiMessageId = newId();
  const common = { chatflowid: x.chatflowid, chatId: x.chatId, sessionId: x.sessionId, memoryType: x.memoryType, chatType: "EXTERNAL" as const };
  // form / humanInput are recorded on the user message (its `action` field), so the run is auditable.
  const action = x.form !== undefined || x.humanInput !== undefined ? { form: x.form, humanInput: x.humanInput } : null;
  await db.batch([
    db.insert(chatMessage).values({
      ...common, id: newId(), role: "userMessage", content: x.question, createdDate: x.startedAt,
      fileUploads: asJson(x.fileUploads), leadEmail: x.leadEmail ?? null, action: asJson(action),
    }),
    db.insert(chatMessage).values({
      ...common, id: apiMessageId, role: "apiMessage", content: x.answer, createdDate: nowIso(),
      sourceDocuments: asJson(x.sourceDocuments), usedTools: asJson(x.usedTools),
    }),
  ]);
  return apiMessageId;
}
