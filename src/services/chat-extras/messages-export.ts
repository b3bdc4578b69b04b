// POST /export-import/chatflow-messages: the file View Messages' "Export" downloads — Flowise's
// exportChatflowMessages shape: one entry per conversation (chatId, or chatId_memoryType_sessionId),
// newest conversation first, each with its messages oldest first, their feedback, sources, tools,
// reasoning, artifacts and stored files (as get-upload-file URLs, where Flowise gives its server's
// disk paths, which mean nothing to a reader).
import { type SQL, and, desc, eq, gte, inArray, lte, sql } from "drizzle-orm";
import type { Deps } from "../deps";
import { chatMessage, chatMessageFeedback } from "../../db/schema";
import type { ChatType, FeedbackRating } from "../../db/enums";
import { payloadTooLarge } from "../../errors";
import { listChatMessages } from "../chatmessages";

/** Messages one export may hold: beyond, the caller narrows the dates (the answer is built in memory). */
export const MAX_EXPORT_MESSAGES = 20_000;

export interface MessagesExportFilter {
  chatflowId: string;
  chatTypes?: ChatType[];
  feedbackTypes?: FeedbackRating[];
  startDate?: string;
  endDate?: string;
}

const SOURCES: Record<string, string> = {
  INTERNAL: "UI",
  EXTERNAL: "API/Embed",
  MCP: "MCP",
  OPENAI: "OpenAI",
  WEBHOOK: "Webhook",
  SCHEDULED: "Scheduled",
  EVALUATION: "Evaluation",
};

type Row = Record<string, unknown> & { feedback?: { content?: string | null; rating?: string } | null };

const parsed = (value: unknown): unknown => {
  if (typeof value !== "string") return value ?? null;
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
};

/** Every message of the filter, newest first, each with its feedback (null when unrated). */
async function allMessages({ db }: Deps<"db">, f: MessagesExportFilter): Promise<Row[]> {
  const m = chatMessage;
  const where: (SQL | undefined)[] = [
    eq(m.chatflowid, f.chatflowId),
    f.chatTypes?.length ? inArray(m.chatType, f.chatTypes) : undefined,
    f.startDate ? gte(m.createdDate, f.startDate) : undefined,
    f.endDate ? lte(m.createdDate, f.endDate) : undefined,
  ];
  const roleRank = sql`CASE ${m.role} WHEN 'userMessage' THEN 0 ELSE 1 END`;
  const rows = await db
    .select({ message: m, feedback: chatMessageFeedback })
    .from(m)
    .leftJoin(chatMessageFeedback, eq(chatMessageFeedback.messageId, m.id))
    .where(and(...where))
    .orderBy(desc(m.createdDate), desc(roleRank), desc(m.id))
    .limit(MAX_EXPORT_MESSAGES + 1)
    .all();
  return rows.map((r) => ({ ...r.message, feedback: r.feedback }));
}

/** With feedback types: the answers rated so (both: any rating) and the question before each, as GET /chatmessage filters them. */
async function ratedMessages(deps: Deps<"db">, f: MessagesExportFilter): Promise<Row[]> {
  const types = [...new Set(f.feedbackTypes)];
  const filter = { chatflowid: f.chatflowId, chatTypes: f.chatTypes, startDate: f.startDate, endDate: f.endDate };
  return (await listChatMessages(deps, filter, {
    order: "DESC",
    feedback: true,
    feedbackType: types.length === 1 ? types[0] : undefined,
  })) as Row[];
}

const fileUrl = (base: string, flowId: string, chatId: string, name: string) =>
  `${base}/api/v1/get-upload-file?${new URLSearchParams({ chatflowId: flowId, chatId, fileName: name })}`;

function exportedMessage(row: Row, base: string): Record<string, unknown> {
  const flowId = String(row.chatflowid);
  const chatId = String(row.chatId);
  const msg: Record<string, unknown> = {
    content: row.content,
    role: row.role === "apiMessage" ? "bot" : "user",
    time: row.createdDate,
  };
  const uploads = parsed(row.fileUploads);
  if (Array.isArray(uploads)) {
    const paths = uploads
      .filter((u) => u?.type === "stored-file" && typeof u.name === "string")
      .map((u) => fileUrl(base, flowId, chatId, u.name));
    if (paths.length) msg.filePaths = paths;
  }
  for (const field of ["sourceDocuments", "usedTools", "fileAnnotations", "agentReasoning"] as const) {
    const value = parsed(row[field]);
    if (value !== null && value !== undefined) msg[field] = value;
  }
  if (row.feedback) {
    msg.feedback = row.feedback.content ?? "";
    msg.rating = row.feedback.rating;
  }
  const artifacts = parsed(row.artifacts);
  if (Array.isArray(artifacts)) {
    msg.artifacts = artifacts.map((a) =>
      (a?.type === "png" || a?.type === "jpeg") && typeof a.data === "string"
        ? { ...a, data: fileUrl(base, flowId, chatId, a.data.replace("FILE-STORAGE::", "")) }
        : a,
    );
  }
  return msg;
}

export interface ExportedConversation {
  id: string;
  source: string;
  sessionId: string | null;
  memoryType: string | null;
  email: string | null;
  messages: Record<string, unknown>[];
}

/** The export: conversations newest first, their messages oldest first. `base`: this deployment's origin, for file URLs. */
export async function exportChatflowMessages(deps: Deps<"db">, f: MessagesExportFilter, base: string): Promise<ExportedConversation[]> {
  const rows = f.feedbackTypes?.length ? await ratedMessages(deps, f) : await allMessages(deps, f);
  if (rows.length > MAX_EXPORT_MESSAGES)
    throw payloadTooLarge(`More than ${MAX_EXPORT_MESSAGES} messages match: narrow the export with startDate and endDate`);
  const conversations = new Map<string, ExportedConversation>();
  for (const row of rows) {
    const key = row.memoryType && row.sessionId ? `${row.chatId}_${row.memoryType}_${row.sessionId}` : String(row.chatId);
    let conversation = conversations.get(key);
    if (!conversation) {
      conversation = {
        id: String(row.chatId),
        source: SOURCES[String(row.chatType)] ?? "Unknown",
        sessionId: (row.sessionId as string | null) ?? null,
        memoryType: (row.memoryType as string | null) ?? null,
        email: (row.leadEmail as string | null) ?? null,
        messages: [],
      };
      conversations.set(key, conversation);
    }
    // The lead's email is on whichever message was recorded after the lead was given.
    if (!conversation.email && typeof row.leadEmail === "string" && row.leadEmail) conversation.email = row.leadEmail;
    conversation.messages.push(exportedMessage(row, base));
  }
  return [...conversations.values()].map((c) => ({ ...c, messages: c.messages.reverse() }));
}
