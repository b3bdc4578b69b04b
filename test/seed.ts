// Seeding helpers for the conversation resources (chat messages, feedback, leads, upsert history).
// Chat messages are written by predictions; these tests put rows straight into local D1 instead.
import { env } from "cloudflare:workers";
import { json, uuid } from "./helpers";

export type Role = "userMessage" | "apiMessage";

/** A chat_message row as the tests describe it; JSON columns are given as values and stored as text. */
export interface SeedMessage {
  id?: string;
  role: Role;
  content?: string;
  chatType?: "INTERNAL" | "EXTERNAL";
  chatId?: string;
  memoryType?: string | null;
  sessionId?: string | null;
  leadEmail?: string | null;
  createdDate: string;
  sourceDocuments?: unknown;
  usedTools?: unknown;
  fileAnnotations?: unknown;
  agentReasoning?: unknown;
  fileUploads?: unknown;
  artifacts?: unknown;
  action?: unknown;
  followUpPrompts?: unknown;
  executionId?: string | null;
}

const JSON_COLUMNS = [
  "sourceDocuments",
  "usedTools",
  "fileAnnotations",
  "agentReasoning",
  "fileUploads",
  "artifacts",
  "action",
  "followUpPrompts",
] as const;
const COLUMNS = [
  "id",
  "role",
  "chatflowid",
  "content",
  ...JSON_COLUMNS,
  "chatType",
  "chatId",
  "memoryType",
  "sessionId",
  "leadEmail",
  "executionId",
  "createdDate",
] as const;

/** A stored message, as its fields were seeded (JSON fields as values, absent ones null). */
export interface Seeded {
  id: string;
  role: Role;
  chatflowid: string;
  content: string;
  sourceDocuments: unknown;
  usedTools: unknown;
  fileAnnotations: unknown;
  agentReasoning: unknown;
  fileUploads: unknown;
  artifacts: unknown;
  action: unknown;
  followUpPrompts: unknown;
  chatType: "INTERNAL" | "EXTERNAL";
  chatId: string;
  memoryType: string | null;
  sessionId: string | null;
  leadEmail: string | null;
  executionId: string | null;
  createdDate: string;
}

/** Inserts messages into chat_message (in batches) and answers them as the API should present them. */
export async function seedMessages(chatflowid: string, messages: SeedMessage[]): Promise<Seeded[]> {
  const rows: Seeded[] = messages.map((m) => ({
    id: m.id ?? uuid(),
    role: m.role,
    chatflowid,
    content: m.content ?? `${m.role} at ${m.createdDate}`,
    sourceDocuments: m.sourceDocuments ?? null,
    usedTools: m.usedTools ?? null,
    fileAnnotations: m.fileAnnotations ?? null,
    agentReasoning: m.agentReasoning ?? null,
    fileUploads: m.fileUploads ?? null,
    artifacts: m.artifacts ?? null,
    action: m.action ?? null,
    followUpPrompts: m.followUpPrompts ?? null,
    chatType: m.chatType ?? "EXTERNAL",
    chatId: m.chatId ?? "chat-1",
    memoryType: m.memoryType ?? null,
    sessionId: m.sessionId === undefined ? (m.chatId ?? "chat-1") : m.sessionId,
    leadEmail: m.leadEmail ?? null,
    executionId: m.executionId ?? null,
    createdDate: m.createdDate,
  }));
  const insert = env.DB.prepare(`INSERT INTO chat_message (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map(() => "?").join(", ")})`);
  const statements = rows.map((r) =>
    insert.bind(
      ...COLUMNS.map((c) => {
        const value = r[c];
        if ((JSON_COLUMNS as readonly string[]).includes(c)) return value === null ? null : JSON.stringify(value);
        return value;
      }),
    ),
  );
  for (let i = 0; i < statements.length; i += 50) await env.DB.batch(statements.slice(i, i + 50));
  return rows;
}

export interface SeedFeedback {
  id?: string;
  message: Seeded;
  rating: "THUMBS_UP" | "THUMBS_DOWN";
  content?: string | null;
  createdDate?: string;
}

export interface FeedbackRecord {
  id: string;
  chatflowid: string;
  chatId: string;
  messageId: string;
  rating: "THUMBS_UP" | "THUMBS_DOWN";
  content: string | null;
  createdDate: string;
}

/** Inserts feedback rows straight into chat_message_feedback (to control createdDate). */
export async function seedFeedback(items: SeedFeedback[]): Promise<FeedbackRecord[]> {
  const rows: FeedbackRecord[] = items.map((f) => ({
    id: f.id ?? uuid(),
    chatflowid: f.message.chatflowid,
    chatId: f.message.chatId,
    messageId: f.message.id,
    rating: f.rating,
    content: f.content ?? null,
    createdDate: f.createdDate ?? f.message.createdDate,
  }));
  const insert = env.DB.prepare(
    "INSERT INTO chat_message_feedback (id, chatflowid, chatId, messageId, rating, content, createdDate) VALUES (?,?,?,?,?,?,?)",
  );
  const statements = rows.map((r) => insert.bind(r.id, r.chatflowid, r.chatId, r.messageId, r.rating, r.content, r.createdDate));
  for (let i = 0; i < statements.length; i += 50) await env.DB.batch(statements.slice(i, i + 50));
  return rows;
}

/** A chatflow made through the API (public when asked). */
export async function createFlow(options: { isPublic?: boolean; name?: string } = {}): Promise<{ id: string; isPublic: boolean }> {
  return json("POST", "/chatflows", {
    body: { name: options.name ?? "conversations", flowData: '{"nodes":[],"edges":[]}', isPublic: options.isPublic ?? false },
  });
}

/** The message as GET /chatmessage answers it, with its feedback record when one is attached. */
export const presented = (m: Seeded, feedback?: FeedbackRecord) => (feedback ? { ...m, feedback } : { ...m });

export async function rowsOf<T = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<T[]> {
  return (
    await env.DB.prepare(sql)
      .bind(...params)
      .all<T>()
  ).results;
}

export async function countOf(table: string, where: string, ...params: unknown[]): Promise<number> {
  const row = await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`)
    .bind(...params)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** Puts an object into the FILES bucket; answers its key. */
export async function putFile(key: string, body = "file body"): Promise<string> {
  await env.FILES.put(key, body);
  return key;
}

export async function fileExists(key: string): Promise<boolean> {
  return (await env.FILES.head(key)) !== null;
}

export async function keysUnder(prefix: string): Promise<string[]> {
  const listed = await env.FILES.list({ prefix });
  return listed.objects.map((o) => o.key).sort();
}

/** An ISO timestamp `ms` milliseconds after `base`. */
export const at = (base: string, ms: number) => new Date(Date.parse(base) + ms).toISOString();
