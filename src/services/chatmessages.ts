import { type SQL, and, asc, desc, eq, gte, inArray, lte, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { chatMessage, chatMessageFeedback } from "../db/schema";
import type { ChatType, ChatTypeFilter, FeedbackRating } from "../db/enums";
import { D1_MAX_PARAMS, chunk } from "../lib/chunk";
import type { Deps } from "./deps";

export interface MessageFilter {
  chatflowid: string;
  chatTypes?: ChatTypeFilter[];
  chatId?: string;
  memoryType?: string;
  sessionId?: string;
  startDate?: string;
  endDate?: string;
}

type MessageRow = typeof chatMessage.$inferSelect;
type FeedbackRow = typeof chatMessageFeedback.$inferSelect;

const JSON_FIELDS = [
  "sourceDocuments",
  "usedTools",
  "fileAnnotations",
  "agentReasoning",
  "fileUploads",
  "artifacts",
  "action",
  "followUpPrompts",
] as const;

function parseJson(value: string | null): unknown {
  if (value === null || value === "") return null;
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
}

/** Stored JSON text becomes arrays/objects in answers, as the service document types them. */
function presentMessage(row: MessageRow, feedback?: FeedbackRow | null) {
  const out: Record<string, unknown> = { ...row };
  for (const field of JSON_FIELDS) out[field] = parseJson(row[field]);
  if (feedback) out.feedback = feedback;
  return out;
}

function conditions(f: MessageFilter, m: typeof chatMessage = chatMessage): SQL[] {
  const where: (SQL | undefined)[] = [
    eq(m.chatflowid, f.chatflowid),
    // EVALUATION (a filter value only, never stored) matches no row, as in Flowise.
    f.chatTypes?.length ? inArray(m.chatType, f.chatTypes as ChatType[]) : undefined,
    f.chatId !== undefined ? eq(m.chatId, f.chatId) : undefined,
    f.memoryType !== undefined ? eq(m.memoryType, f.memoryType) : undefined,
    f.sessionId !== undefined ? eq(m.sessionId, f.sessionId) : undefined,
    f.startDate ? gte(m.createdDate, f.startDate) : undefined,
    f.endDate ? lte(m.createdDate, f.endDate) : undefined,
  ];
  return where.filter((c): c is SQL => c !== undefined);
}

/**
 * Ids of the rated API messages matching the filter, and of the user message just before each
 * (same chat, latest user message not after it, itself within the filter: a date range bounds
 * every message answered or deleted) — all in SQL, one statement.
 */
function ratedWithQuestions(f: MessageFilter, rating?: FeedbackRating): SQL {
  const m = chatMessage;
  const fb = chatMessageFeedback;
  const u = alias(chatMessage, "u");
  const rated = and(...conditions(f), eq(m.role, "apiMessage"), rating ? eq(fb.rating, rating) : undefined);
  const question = and(
    ...conditions(f, u as unknown as typeof chatMessage),
    sql`${u.chatId} = ${m.chatId}`,
    eq(u.role, "userMessage"),
    sql`${u.createdDate} <= ${m.createdDate}`,
  );
  return sql`${m.id} IN (
    SELECT ${m.id} FROM ${m} INNER JOIN ${fb} ON ${fb.messageId} = ${m.id} WHERE ${rated}
    UNION
    SELECT (SELECT ${u.id} FROM ${chatMessage} AS ${u} WHERE ${question}
              ORDER BY ${u.createdDate} DESC LIMIT 1)
      FROM ${m} INNER JOIN ${fb} ON ${fb.messageId} = ${m.id} WHERE ${rated}
  )`;
}

function selection(f: MessageFilter, feedbackOnly: boolean, rating?: FeedbackRating): SQL | undefined {
  return feedbackOnly ? ratedWithQuestions(f, rating) : and(...conditions(f));
}

export async function listChatMessages(
  { db }: Deps<"db">,
  f: MessageFilter,
  options: { order?: "ASC" | "DESC"; feedback?: boolean; feedbackType?: FeedbackRating },
) {
  const direction = options.order === "DESC" ? desc : asc;
  // A question and its answer can share a millisecond: keep the question first (ASC).
  const roleRank = sql`CASE ${chatMessage.role} WHEN 'userMessage' THEN 0 ELSE 1 END`;
  const rows = await db
    .select({ message: chatMessage, feedback: chatMessageFeedback })
    .from(chatMessage)
    .leftJoin(chatMessageFeedback, eq(chatMessageFeedback.messageId, chatMessage.id))
    .where(selection(f, !!options.feedback, options.feedbackType))
    .orderBy(direction(chatMessage.createdDate), direction(roleRank), direction(chatMessage.id))
    .all();
  return rows.map((r) => presentMessage(r.message, options.feedback ? r.feedback : null));
}

interface StoredUpload {
  type?: string;
  name?: string;
}

/** R2 keys of the chat uploads a message recorded (`<chatflowid>/<chatId>/<name>`). */
function uploadKeys(chatflowid: string, m: { chatId: string; fileUploads: string | null }): string[] {
  const uploads = parseJson(m.fileUploads);
  if (!Array.isArray(uploads)) return [];
  return (uploads as StoredUpload[]).filter((u) => u?.type === "stored-file" && u.name).map((u) => `${chatflowid}/${m.chatId}/${u.name}`);
}

/**
 * Deletes the matching messages, their feedback and their uploaded files. With `feedbackType`,
 * the rated answers of that type and their questions. Returns the number of messages deleted.
 *
 * Only the chat uploads the deleted messages recorded are removed — never the rest of the
 * chatflow's prefix, where POST /vector/upsert keeps the files its loaders read — and not one a
 * message that stays still names (a file sent twice in one chat is one key).
 */
export async function deleteChatMessages(
  { db, files }: Deps<"db" | "files">,
  f: MessageFilter,
  feedbackType?: FeedbackRating,
): Promise<number> {
  const targets = await db
    .select({ id: chatMessage.id, chatId: chatMessage.chatId, fileUploads: chatMessage.fileUploads })
    .from(chatMessage)
    .where(selection(f, !!feedbackType, feedbackType))
    .all();

  const ids = targets.map((t) => t.id);
  const statements = chunk(ids, D1_MAX_PARAMS - 1).flatMap((part) => [
    db.delete(chatMessageFeedback).where(inArray(chatMessageFeedback.messageId, part)),
    db.delete(chatMessage).where(inArray(chatMessage.id, part)),
  ]);
  if (statements.length) await db.batch(statements as [(typeof statements)[number], ...typeof statements]);

  const keys = new Set(targets.flatMap((t) => uploadKeys(f.chatflowid, t)));
  if (keys.size) {
    const chats = [...new Set(targets.filter((t) => t.fileUploads).map((t) => t.chatId))];
    for (const part of chunk(chats, D1_MAX_PARAMS - 1)) {
      const kept = await db
        .select({ chatId: chatMessage.chatId, fileUploads: chatMessage.fileUploads })
        .from(chatMessage)
        .where(
          and(eq(chatMessage.chatflowid, f.chatflowid), inArray(chatMessage.chatId, part), sql`${chatMessage.fileUploads} IS NOT NULL`),
        )
        .all();
      for (const m of kept) for (const key of uploadKeys(f.chatflowid, m)) keys.delete(key);
    }
  }
  for (const part of chunk([...keys], 1000)) await files.delete(part);
  return ids.length;
}
