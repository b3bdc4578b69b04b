import type { z } from "@hono/zod-openapi";
import { asc, eq } from "drizzle-orm";
import type { Db } from "../env";
import { lead } from "../db/schema";
import type { LeadCreate } from "../schemas/leads";
import { newId } from "../lib/ids";
import { type Resource, insertRecord } from "./crud";

const leads: Resource<typeof lead> = { table: lead, label: "Lead", sqlName: "lead" };

/** The caller has already checked the chatflow exists and may be written to. */
export const createLead = (db: Db, input: z.infer<typeof LeadCreate>) =>
  insertRecord(db, leads, { ...input, chatId: input.chatId ?? newId() });

/** Oldest first, as Flowise lists them. */
export const listLeads = (db: Db, chatflowid: string) =>
  db.select().from(lead).where(eq(lead.chatflowid, chatflowid)).orderBy(asc(lead.createdDate), asc(lead.id)).all();
