import { eq, inArray } from "drizzle-orm";
import type { ChatflowType } from "../db/enums";
import { assistant, chatFlow, documentStore, upsertHistory } from "../db/schema";
import { D1_MAX_PARAMS, chunk } from "../lib/chunk";
import type { Deps } from "./deps";

/**
 * What a record id in a path names, for permission checks: a chatflow (its type decides which
 * permissions apply), an assistant, or a document store. Null when it names none of them.
 */
export type RecordOwner =
  | { kind: "chatflow"; id: string; type: ChatflowType }
  | { kind: "assistant"; id: string }
  | { kind: "documentStore"; id: string };

export async function findOwner({ db }: Deps<"db">, id: string): Promise<RecordOwner | null> {
  const [flows, assistants, stores] = await db.batch([
    db.select({ type: chatFlow.type }).from(chatFlow).where(eq(chatFlow.id, id)),
    db.select({ id: assistant.id }).from(assistant).where(eq(assistant.id, id)),
    db.select({ id: documentStore.id }).from(documentStore).where(eq(documentStore.id, id)),
  ]);
  if (flows[0]) return { kind: "chatflow", id, type: flows[0].type };
  if (assistants[0]) return { kind: "assistant", id };
  if (stores[0]) return { kind: "documentStore", id };
  return null;
}

/** The records (chatflows or document stores) that these upsert history rows belong to. */
export async function upsertHistoryOwners({ db }: Deps<"db">, ids: string[]): Promise<string[]> {
  const owners = new Set<string>();
  for (const part of chunk([...new Set(ids)], D1_MAX_PARAMS - 1)) {
    const rows = await db
      .selectDistinct({ owner: upsertHistory.chatflowid })
      .from(upsertHistory)
      .where(inArray(upsertHistory.id, part))
      .all();
    for (const row of rows) owners.add(row.owner);
  }
  return [...owners];
}
