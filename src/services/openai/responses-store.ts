// Responses kept (`store`, on by default as in OpenAI's API) for GET /openai/responses/{id} and for a
// later request's previous_response_id, which continues the same chat.
import { eq } from "drizzle-orm";
import { openaiResponse } from "../../db/schema";
import { nowIso } from "../../lib/time";
import { OpenAIError } from "./errors";
import type { Deps } from "../deps";

export type StoredResponse = typeof openaiResponse.$inferSelect;

export const newResponseId = () => `resp_${crypto.randomUUID().replaceAll("-", "")}`;

export async function saveResponse({ db }: Deps<"db">, row: Omit<StoredResponse, "createdDate">): Promise<void> {
  await db.insert(openaiResponse).values({ ...row, createdDate: nowIso() });
}

/** The stored response `id`; 404 (naming `param`) when there is none. */
export async function findResponse({ db }: Deps<"db">, id: string, param: string | null = null): Promise<StoredResponse> {
  const row = await db.select().from(openaiResponse).where(eq(openaiResponse.id, id)).get();
  if (!row)
    throw new OpenAIError(
      404,
      `Response with id '${id}' not found (responses created with store: false are not kept)`,
      param,
      "response_not_found",
    );
  return row;
}
