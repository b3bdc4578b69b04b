import { z } from "@hono/zod-openapi";
import { dateQuery, uuid } from "./common";

export const UpsertHistoryQuery = z.object({
  order: z
    .string()
    .transform((s) => s.toUpperCase())
    .pipe(z.enum(["ASC", "DESC"]))
    .optional(),
  startDate: dateQuery("start").optional(),
  endDate: dateQuery("end").optional(),
});

export const UpsertHistoryDelete = z.object({ ids: z.array(uuid()).min(1).max(1000) }).openapi("UpsertHistoryDelete");

export const UpsertHistory = z
  .object({
    id: z.string(),
    chatflowid: z.string(),
    result: z.string().openapi({ description: "JSON serialized as a string" }),
    flowData: z.string().openapi({ description: "JSON serialized as a string" }),
    date: z.string(),
  })
  .openapi("UpsertHistory");
