// What conversations leave behind: messages, their feedback, leads, the OpenAI API's stored
// responses, and the history of vector upserts.
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { ChatType, FeedbackRating, MessageRole } from "../enums";
import { createdDate } from "./columns";

export const lead = sqliteTable(
  "lead",
  {
    id: text("id").primaryKey(),
    name: text("name"),
    email: text("email"),
    phone: text("phone"),
    chatflowid: text("chatflowid").notNull(),
    chatId: text("chatId").notNull(),
    createdDate: createdDate(),
  },
  (t) => [index("idx_lead_flow_created").on(t.chatflowid, t.createdDate)],
);

export const chatMessage = sqliteTable(
  "chat_message",
  {
    id: text("id").primaryKey(),
    role: text("role").$type<MessageRole>().notNull(),
    chatflowid: text("chatflowid").notNull(),
    content: text("content").notNull(),
    sourceDocuments: text("sourceDocuments"),
    usedTools: text("usedTools"),
    fileAnnotations: text("fileAnnotations"),
    agentReasoning: text("agentReasoning"),
    fileUploads: text("fileUploads"),
    artifacts: text("artifacts"),
    action: text("action"),
    followUpPrompts: text("followUpPrompts"),
    chatType: text("chatType").$type<ChatType>().notNull(),
    chatId: text("chatId").notNull(),
    memoryType: text("memoryType"),
    sessionId: text("sessionId"),
    leadEmail: text("leadEmail"),
    // The agentflow execution this message belongs to (Flowise's chat_message.executionId).
    executionId: text("executionId"),
    createdDate: createdDate(),
  },
  (t) => [
    index("idx_chat_message_flow_created").on(t.chatflowid, t.createdDate),
    index("idx_chat_message_chat").on(t.chatId, t.createdDate),
    index("idx_chat_message_session").on(t.sessionId, t.createdDate),
    index("idx_chat_message_execution").on(t.executionId),
  ],
);

export const chatMessageFeedback = sqliteTable(
  "chat_message_feedback",
  {
    id: text("id").primaryKey(),
    chatflowid: text("chatflowid").notNull(),
    chatId: text("chatId").notNull(),
    messageId: text("messageId").notNull(),
    rating: text("rating").$type<FeedbackRating>().notNull(),
    content: text("content"),
    createdDate: createdDate(),
  },
  (t) => [uniqueIndex("uq_feedback_message").on(t.messageId), index("idx_feedback_flow_created").on(t.chatflowid, t.createdDate)],
);

/**
 * A Responses API answer kept for `GET /openai/responses/{id}` and `previous_response_id` (which
 * continues its chat): `response` is the JSON answered, the other columns what a lookup needs.
 */
export const openaiResponse = sqliteTable(
  "openai_response",
  {
    id: text("id").primaryKey(),
    chatflowid: text("chatflowid").notNull(),
    chatId: text("chatId").notNull(),
    sessionId: text("sessionId").notNull(),
    executionId: text("executionId"),
    response: text("response").notNull(),
    createdDate: createdDate(),
  },
  (t) => [index("idx_openai_response_flow").on(t.chatflowid)],
);

export const upsertHistory = sqliteTable(
  "upsert_history",
  {
    id: text("id").primaryKey(),
    chatflowid: text("chatflowid").notNull(),
    result: text("result").notNull(),
    flowData: text("flowData").notNull(),
    date: text("date").notNull(),
  },
  (t) => [index("idx_upsert_history_flow_date").on(t.chatflowid, t.date)],
);
