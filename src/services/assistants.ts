import type { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import type { Db } from "../env";
import type { AssistantType } from "../db/enums";
import { invalid } from "../errors";
import { assistant, credential } from "../db/schema";
import type { AssistantCreate, AssistantUpdate } from "../schemas/assistants";
import type { PageQueryInput } from "../schemas/common";
import { type Resource, deleteRecord, findRecord, insertRecord, listRecords, updateRecord } from "./crud";
import type { Deps } from "./deps";

const assistants: Resource<typeof assistant> = { table: assistant, label: "Assistant", sqlName: "assistant" };

type Row = typeof assistant.$inferSelect;
/** `details` is stored as JSON text and answered as an object. */
const present = (row: Row) => ({ ...row, details: JSON.parse(row.details) as Record<string, unknown> });

async function assertCredentialExists(db: Db, id: string | null | undefined): Promise<void> {
  if (!id) return;
  const found = await db.select({ id: credential.id }).from(credential).where(eq(credential.id, id)).get();
  if (!found) throw invalid(`credential: credential ${id} not found`);
}

export async function createAssistant({ db }: Deps<"db">, input: z.infer<typeof AssistantCreate>) {
  await assertCredentialExists(db, input.credential);
  return present(await insertRecord(db, assistants, { ...input, details: JSON.stringify(input.details) }));
}

export async function updateAssistant({ db }: Deps<"db">, id: string, patch: z.infer<typeof AssistantUpdate>) {
  await assertCredentialExists(db, patch.credential);
  const details = patch.details === undefined ? undefined : JSON.stringify(patch.details);
  return present(await updateRecord(db, assistants, id, { ...patch, details }));
}

export const getAssistant = async ({ db }: Deps<"db">, id: string) => present(await findRecord(db, assistants, id));
/** Newest first; `type` keeps one kind (CUSTOM, OPENAI, AZURE), as Flowise's `?type=`. */
export const listAssistants = ({ db }: Deps<"db">, page: PageQueryInput, type?: AssistantType) =>
  listRecords(db, assistants, page, { map: present, where: type ? eq(assistant.type, type) : undefined });
export const deleteAssistant = ({ db }: Deps<"db">, id: string) => deleteRecord(db, assistants, id);
