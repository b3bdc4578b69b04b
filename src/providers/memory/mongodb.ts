// A session's messages in MongoDB, laid out as Flowise's MongoDBAtlasChatMemory keeps them, so a
// session started on Flowise goes on here: one document per session, {sessionId, messages: [...]},
// each message LangChain's stored form ({type: "human" | "ai", data: {content, …}}) with the
// `timestamp` (a BSON date) Flowise adds. Read with find {sessionId} (limit 1, as findOne);
// an exchange appended with one update: $push {messages: {$each: [question, answer]}}, upsert. A
// session's document is capped at 16 MiB by MongoDB: past it the save fails, saying so (no trimming).
import { ApiError, fail } from "../../errors";
import type { BsonDocument, MongoCollection } from "../mongodb";

export type StoredRole = "userMessage" | "apiMessage";

const ROLES: Record<string, StoredRole> = { human: "userMessage", ai: "apiMessage" };

const contentText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((p) => (typeof p === "string" ? p : typeof p?.text === "string" ? p.text : "")).join("")
      : "";

/** The session's messages, oldest first (items that are not LangChain messages are skipped). */
export async function loadMongoHistory(c: MongoCollection, sessionId: string): Promise<Array<{ role: StoredRole; content: string }>> {
  const [doc] = await c.session((s) => s.find({ sessionId }, { limit: 1 }));
  const messages = Array.isArray(doc?.messages) ? (doc.messages as BsonDocument[]) : [];
  const out: Array<{ role: StoredRole; content: string }> = [];
  for (const m of messages) {
    const role = ROLES[String(m?.type ?? "")];
    const data = m?.data as { content?: unknown } | undefined;
    if (role) out.push({ role, content: contentText(data?.content) });
  }
  return out;
}

/** Appends the exchange as HumanMessage and AIMessage's toDict() with a timestamp each, making the session's document if need be. */
export async function saveMongoExchange(c: MongoCollection, sessionId: string, question: string, answer: string): Promise<void> {
  const now = new Date();
  const human = { type: "human", data: { content: question, additional_kwargs: {}, response_metadata: {} }, timestamp: now };
  const ai = {
    type: "ai",
    data: { content: answer, tool_calls: [], invalid_tool_calls: [], additional_kwargs: {}, response_metadata: {} },
    timestamp: now,
  };
  try {
    await c.session((s) => s.update([{ q: { sessionId }, u: { $push: { messages: { $each: [human, ai] } } }, upsert: true }]));
  } catch (err) {
    // Flowise keeps a whole session in one document: past MongoDB's 16 MiB (write error 17419) no exchange fits
    // any more. Said plainly rather than trimmed: the model's context is exceeded long before, so this is rare.
    if (err instanceof ApiError && err.message.includes("(17419)"))
      throw fail(
        "UPSTREAM_FAILED",
        `session "${sessionId}" is at MongoDB's 16 MiB document limit: start a new session or delete it (${err.message})`,
      );
    throw err;
  }
}
