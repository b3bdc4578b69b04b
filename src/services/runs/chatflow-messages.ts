// The two messages a chatflow (or assistant) run stores once it succeeded: the record stage of a
// chatflow run, one conditional D1 batch.
import type { RecordStatement } from "./types";
import { eq } from "drizzle-orm";
import { chatMessage } from "../../db/schema";
import type { ChatType } from "../../db/enums";
import { notFound } from "../../errors";
import { runBatch, stmt } from "../../providers/vectorstores/d1-json";
import type { SourceDocument, UsedTool } from "../../engine";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import type { Deps } from "../deps";

export interface Exchange {
  chatflowid: string;
  /** Who started the run (the trigger's chatType): on both messages. */
  chatType: ChatType;
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
  artifacts?: unknown[];
  /** The follow-up questions, the JSON string stored as is. */
  followUpPrompts?: string;
  form?: unknown;
  humanInput?: unknown;
}

const asJson = (value: unknown) =>
  value === undefined || value === null || (Array.isArray(value) && !value.length) ? null : JSON.stringify(value);

// The next free time in a chat: `t` unless the chat already has a message at or after it, then
// 1 ms after its latest. ISO strings of one format compare as times; strftime keeps that format.
const NEXT_TIME = (latest: string) =>
  `CASE WHEN ${latest} IS NULL OR ?2 > ${latest} THEN ?2 ELSE strftime('%Y-%m-%dT%H:%M:%fZ', ${latest}, '+0.001 seconds') END`;

// ?1 id, ?2 time, ?3 chatflowid, ?4 chatId, then the message's own columns.
const INSERT_QUESTION =
  `INSERT INTO chat_message (id, createdDate, chatflowid, chatId, role, chatType, content, ` +
  `memoryType, sessionId, fileUploads, leadEmail, action)
  SELECT ?1, ${NEXT_TIME("(SELECT MAX(createdDate) FROM chat_message WHERE chatflowid = ?3 AND chatId = ?4)")}, ` +
  `?3, ?4, 'userMessage', ?11, ?5, ?6, ?7, ?8, ?9, ?10
  WHERE EXISTS (SELECT 1 FROM chat_flow WHERE id = ?3) OR EXISTS (SELECT 1 FROM assistant WHERE id = ?3)`;
// ?3 is the question's id here: the answer exists only with its question, and follows it.
const INSERT_ANSWER =
  `INSERT INTO chat_message (id, createdDate, chatflowid, chatId, role, chatType, content, ` +
  `memoryType, sessionId, sourceDocuments, usedTools, artifacts, followUpPrompts)
  SELECT ?1, ${NEXT_TIME("q.createdDate")}, q.chatflowid, q.chatId, 'apiMessage', q.chatType, ?4, q.memoryType, q.sessionId, ?5, ?6, ?7, ?8
  FROM chat_message q WHERE q.id = ?3`;

/** The two messages' ids, when the caller chooses them. */
export interface ExchangeIds {
  question: string;
  answer: string;
}

/**
 * Stores the question then the answer after a successful run: one D1 batch (one transaction), so
 * concurrent turns of a chat cannot interleave, and conditional —
 * - on the chatflow (or assistant) still existing: a chatflow deleted while the run was in progress
 *   gets nothing (404), and its id, reused later, starts with an empty history;
 * - on time: the question keeps the request's start unless the chat already has a later message
 *   (a turn that finished first), then it follows that message; the answer follows its question.
 *   So each question is directly followed by its own answer, timestamps strictly increasing.
 * `also`: more rows made once the answer's id is known, in the same batch (RunRequest.recordAlso).
 * Answers the API message id.
 */
export async function storeExchange(
  { db }: Deps<"db">,
  x: Exchange,
  ids?: ExchangeIds,
  also?: (apiMessageId: string) => Promise<RecordStatement[]>,
): Promise<string> {
  const questionId = ids?.question ?? newId();
  const apiMessageId = ids?.answer ?? newId();
  // Keyed ids (a detached run's record running again): a stored answer means the batch landed.
  if (ids && (await db.select({ id: chatMessage.id }).from(chatMessage).where(eq(chatMessage.id, apiMessageId)).get())) return apiMessageId;
  // form / humanInput are recorded on the user message (its `action` field), so the run is auditable.
  const action = x.form !== undefined || x.humanInput !== undefined ? { form: x.form, humanInput: x.humanInput } : null;
  const [question] = await runBatch(db, [
    {
      sql: INSERT_QUESTION,
      params: [
        questionId,
        x.startedAt,
        x.chatflowid,
        x.chatId,
        x.question,
        x.memoryType,
        x.sessionId,
        asJson(x.fileUploads),
        x.leadEmail ?? null,
        asJson(action),
        x.chatType,
      ],
    },
    {
      sql: INSERT_ANSWER,
      params: [
        apiMessageId,
        nowIso(),
        questionId,
        x.answer,
        asJson(x.sourceDocuments),
        asJson(x.usedTools),
        asJson(x.artifacts),
        x.followUpPrompts ?? null,
      ],
    },
    ...(also ? (await also(apiMessageId)).map(stmt) : []),
  ]);
  if (!question.meta.changes) throw notFound(`Chatflow ${x.chatflowid} was deleted while the run was in progress: nothing was stored`);
  return apiMessageId;
}
