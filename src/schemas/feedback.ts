import { z } from "@hono/zod-openapi";
import { FEEDBACK_RATINGS } from "../db/enums";
import { dateQuery, text, uuid } from "./common";

export const FeedbackCreate = z
  .object({
    chatflowid: uuid().optional(),
    chatId: text(1000).optional(),
    messageId: uuid(),
    rating: z.enum(FEEDBACK_RATINGS),
    content: text(10_000).nullish(),
  })
  .openapi("FeedbackCreate");

export const FeedbackUpdate = z
  .object({
    rating: z.enum(FEEDBACK_RATINGS).optional(),
    content: text(10_000).nullish(),
  })
  .openapi("FeedbackUpdate");

const sortOrder = () =>
  z
    .string()
    .transform((s) => s.toLowerCase())
    .pipe(z.enum(["asc", "desc"]));

export const FeedbackQuery = z.object({
  chatId: text(1000).optional(),
  sortOrder: sortOrder().optional(),
  order: sortOrder().optional().openapi({ description: "Flowise's name for sortOrder" }),
  startDate: dateQuery("start").optional(),
  endDate: dateQuery("end").optional(),
});
