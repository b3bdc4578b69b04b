import type { z } from "@hono/zod-openapi";
import { and, asc, desc, eq, gte, lte } from "drizzle-orm";
import { badRequest, conflict, notFound } from "../errors";
import { isUniqueViolation } from "../db/errors";
import { chatMessage, chatMessageFeedback } from "../db/schema";
import type { FeedbackCreate, FeedbackUpdate } from "../schemas/feedback";
import { type Resource, findRecord, insertRecord, updateRecord } from "./crud";
import type { Deps } from "./deps";

const feedbacks: Resource<typeof chatMessageFeedback> = { table: chatMessageFeedback, label: "Feedback", sqlName: "chat_message_feedback" };

type FeedbackInput = z.infer<typeof FeedbackCreate>;

/** The API message a new feedback is about (404 for an unknown id or a user message). */
export async function findRatedMessage({ db }: Deps<"db">, input: FeedbackInput) {
  const message = await db
    .select({ id: chatMessage.id, role: chatMessage.role, chatflowid: chatMessage.chatflowid, chatId: chatMessage.chatId })
    .from(chatMessage)
    .where(eq(chatMessage.id, input.messageId))
    .get();
  if (message?.role !== "apiMessage") throw notFound(`Message ${input.messageId} not found`);
  return message;
}

/**
 * A feedback's chatflow and chat are its message's; when the request names them too they must
 * agree. Checked after the access check, so an anonymous caller gets 401 from a private chatflow
 * whatever chatflowid/chatId it claims.
 */
export function assertMatchesMessage(message: { id: string; chatflowid: string; chatId: string }, input: FeedbackInput): void {
  if (input.chatflowid !== undefined && input.chatflowid !== message.chatflowid) {
    throw badRequest(`chatflowid ${input.chatflowid} does not match message ${message.id}'s chatflow`);
  }
  if (input.chatId !== undefined && input.chatId !== message.chatId) {
    throw badRequest(`chatId ${input.chatId} does not match message ${message.id}'s chat`);
  }
}

/** One feedback per message: a second is a 409. */
export async function createFeedback(
  { db }: Deps<"db">,
  message: { id: string; chatflowid: string; chatId: string },
  input: FeedbackInput,
) {
  try {
    return await insertRecord(db, feedbacks, {
      chatflowid: message.chatflowid,
      chatId: message.chatId,
      messageId: message.id,
      rating: input.rating,
      content: input.content ?? null,
    });
  } catch (err) {
    if (isUniqueViolation(err, "chat_message_feedback.messageId")) throw conflict(`Message ${message.id} already has feedback`);
    throw err;
  }
}

export const getFeedback = ({ db }: Deps<"db">, id: string) => findRecord(db, feedbacks, id);

export const updateFeedback = ({ db }: Deps<"db">, id: string, patch: z.infer<typeof FeedbackUpdate>) =>
  updateRecord(db, feedbacks, id, patch);

export function listFeedback(
  { db }: Deps<"db">,
  chatflowid: string,
  q: { chatId?: string; order: "asc" | "desc"; startDate?: string; endDate?: string },
) {
  const f = chatMessageFeedback;
  const direction = q.order === "desc" ? desc : asc;
  return db
    .select()
    .from(f)
    .where(
      and(
        eq(f.chatflowid, chatflowid),
        q.chatId !== undefined ? eq(f.chatId, q.chatId) : undefined,
        q.startDate ? gte(f.createdDate, q.startDate) : undefined,
        q.endDate ? lte(f.createdDate, q.endDate) : undefined,
      ),
    )
    .orderBy(direction(f.createdDate), direction(f.id))
    .all();
}
