// The body of POST /export-import/chatflow-messages: what View Messages' filters send (routes/chat-extras.ts).
import { z } from "@hono/zod-openapi";
import { CHAT_TYPES, FEEDBACK_RATINGS } from "../db/enums";
import { dateQuery, uuid } from "./common";

const oneOrMany = <T extends z.ZodTypeAny>(item: T) => z.union([item, z.array(item)]).transform((v) => (Array.isArray(v) ? v : [v]));

export const ExportBody = z
  .object({
    chatflowId: uuid(),
    chatType: oneOrMany(z.enum([...CHAT_TYPES, "EVALUATION"])).optional(),
    feedbackType: oneOrMany(z.enum(FEEDBACK_RATINGS)).optional(),
    startDate: dateQuery("start").optional(),
    endDate: dateQuery("end").optional(),
  })
  .openapi("ChatflowMessagesExportRequest");
