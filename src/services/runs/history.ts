// A session's stored conversation, as memory nodes read it (the runtime's memory port).
import { and, desc, eq } from "drizzle-orm";
import { chatMessage } from "../../db/schema";
import type { ChatTurn } from "../../engine";
import type { Deps } from "../deps";

/**
 * Earlier turns of (chatflow, session), oldest first, with the request's `history` before them.
 * `limit` keeps only the most recent turns (bufferWindowMemory's k exchanges = 2k messages).
 */
export async function loadSessionMemory(
  { db }: Deps<"db">,
  chatflowid: string,
  sessionId: string,
  history: ChatTurn[],
  limit?: number,
): Promise<ChatTurn[]> {
  const rows = await db
    // fileUploads and chatId: where an earlier turn's images are (engine/core/past-images.ts)
    .select({ role: chatMessage.role, content: chatMessage.content, fileUploads: chatMessage.fileUploads, chatId: chatMessage.chatId })
    .from(chatMessage)
    .where(and(eq(chatMessage.chatflowid, chatflowid), eq(chatMessage.sessionId, sessionId)))
    .orderBy(desc(chatMessage.createdDate))
    .limit(limit ?? 10_000)
    .all();
  const turns = [...history, ...rows.reverse()];
  return limit ? turns.slice(-limit) : turns;
}
