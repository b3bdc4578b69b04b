import { z } from "@hono/zod-openapi";
import { text, uuid } from "./common";

export const LeadCreate = z
  .object({
    chatflowid: uuid(),
    chatId: text(1000).pipe(z.string().min(1)).optional(),
    name: text(1000).nullish(),
    email: text(1000).nullish(),
    phone: text(100).nullish(),
  })
  .openapi("LeadCreate");

export const Lead = z
  .object({
    id: z.string(),
    chatflowid: z.string(),
    chatId: z.string(),
    name: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    createdDate: z.string(),
  })
  .openapi("Lead");
