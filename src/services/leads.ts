import type { z } from "@hono/zod-openapi";
import { asc, eq } from "drizzle-orm";
import { lead } from "../db/schema";
import type { LeadCreate } from "../schemas/leads";
import { newId } from "../lib/ids";
import { type Resource, insertRecord } from "./crud";
import type { Deps } from "./deps";

const leads: Resource<typeof lead> = { table: lead, label: "Lead", sqlName: "lead" };

/** The caller has already checked the chatflow exists and may be written to. */
export const createLead = ({ db }: Deps<"db">, input: z.infer<typeof LeadCreate>) =>
  insertRecord(db, leads, { ...input, chatId: input.chatId ?? newId() });

/** Oldest first, as Flowise lists them. */
export const listLeads = ({ db }: Deps<"db">, chatflowid: string) =>
  db.select().from(lead).where(eq(lead.chatflowid, chatflowid)).orderBy(asc(lead.createdDate), asc(lead.id)).all();
