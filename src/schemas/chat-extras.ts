// The body of POST /export-import/chatflow-messages: what View Messages' filters send (routes/chat-extras.ts).
import { z } from "@hono/zod-openapi";
import { CHAT_TYPES, FEEDBACK_RATINGS } from "../db/enums";
import { dateQuery, uuid } from "./common";

/** One value, an array, or (as Flowise also reads them) a JSON array in text; null is no filter. */
const oneOrMany = <T extends z.ZodTypeAny>(item: T) =>
  z.preprocess(
    (v) => {
      if (v === null) return undefined;
      if (typeof v === "string" && v.trim().startsWith("[")) {
        try {
          return JSON.parse(v);
        } catch {
          return v;
        }
      }
      return v;
    },
    z
      .union([item, z.array(item).max(20)])
      .transform((v) => (Array.isArray(v) ? v : [v]))
      .optional(),
  );

const nullAsAbsent = <T extends z.ZodTypeAny>(schema: T) => z.preprocess((v) => (v === null ? undefined : v), schema.optional());

export const ExportBody = z
  .object({
    chatflowId: uuid(),
    chatType: oneOrMany(z.enum([...CHAT_TYPES, "EVALUATION"])),
    feedbackType: oneOrMany(z.enum(FEEDBACK_RATINGS)),
    startDate: nullAsAbsent(dateQuery("start")),
    endDate: nullAsAbsent(dateQuery("end")),
  })
  .openapi("ChatflowMessagesExportRequest");
