// Responses kept (`store`, on by default as in OpenAI's API) for GET /openai/responses/{id} and for a
// later request's previous_response_id, which continues the same chat.
import { eq, sql } from "drizzle-orm";
import { chatMessage, openaiResponse } from "../../db/schema";
import { nowIso } from "../../lib/time";
import { OpenAIError } from "./errors";
import type { Deps } from "../deps";
import type { RecordStatement, RunLookups } from "../runs";

export type StoredResponse = typeof openaiResponse.$inferSelect;

export const newResponseId = () => `resp_${crypto.randomUUID().replaceAll("-", "")}`;

export async function saveResponse({ db }: Deps<"db">, row: Omit<StoredResponse, "createdDate">): Promise<void> {
  await db.insert(openaiResponse).values({ ...row, createdDate: nowIso() });
}

/**
 * The response to keep, as a statement of the run's record batch (RunRequest.recordAlso): written
 * only when the answer message `row.chatMessageId` is written too (a chatflow deleted meanwhile
 * stores neither), in the same round trip as the messages.
 */
export function keptResponse({ db }: Deps<"db">, row: Omit<StoredResponse, "createdDate">, chatMessageId: string): RecordStatement {
  const value = (v: string | null, as: string) => sql<string | null>`${v}`.as(as);
  return db.insert(openaiResponse).select(
    db
      .select({
        id: value(row.id, "id"),
        chatflowid: value(row.chatflowid, "chatflowid"),
        chatId: value(row.chatId, "chatId"),
        sessionId: value(row.sessionId, "sessionId"),
        executionId: value(row.executionId, "executionId"),
        response: value(row.response, "response"),
        createdDate: value(nowIso(), "createdDate"),
      })
      .from(chatMessage)
      .where(eq(chatMessage.id, chatMessageId)),
  );
}

const responseNotFound = (id: string, param: string | null) =>
  new OpenAIError(
    404,
    `Response with id '${id}' not found (responses created with store: false are not kept)`,
    param,
    "response_not_found",
  );

/** The stored response `id`; 404 (naming `param`) when there is none. */
export async function findResponse({ db }: Deps<"db">, id: string, param: string | null = null): Promise<StoredResponse> {
  const row = await db.select().from(openaiResponse).where(eq(openaiResponse.id, id)).get();
  if (!row) throw responseNotFound(id, param);
  return row;
}

/**
 * The response `previous_response_id` names, as the run's batch read it (`lookups.continued`, a
 * `SessionAsked` of that response), else read on its own; 404 when there is none.
 */
export async function continuedResponse(deps: Deps<"db">, lookups: RunLookups, id: string): Promise<StoredResponse> {
  const row = await lookups.continued;
  if (row === undefined) return findResponse(deps, id, "previous_response_id");
  if (!row) throw responseNotFound(id, "previous_response_id");
  return row;
}
