import { z } from "@hono/zod-openapi";
import { CHAT_TYPES, CHAT_TYPE_FILTERS, FEEDBACK_RATINGS, MESSAGE_ROLES } from "../db/enums";
import { boolQuery, dateQuery, text } from "./common";

const upperEnum = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .string()
    .transform((s) => s.toUpperCase())
    .pipe(z.enum(values));

/** One chat type, a JSON array of them, or the parameter repeated: Flowise's forms of the chatType filter. */
export const chatTypeList = () =>
  z
    .preprocess(
      (v) => (v === undefined ? undefined : (Array.isArray(v) ? v : [v]).flatMap(jsonArrayOrSelf)),
      z.array(z.enum(CHAT_TYPE_FILTERS)).optional(),
    )
    .openapi({ description: "A chat type, a JSON array of them, or repeated" });

/** feedbackType on /stats: one rating or several (repeated, or feedbackType[]). */
export const feedbackTypeList = () =>
  z
    .preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.array(z.enum(FEEDBACK_RATINGS)).optional())
    .openapi({ description: "THUMBS_UP, THUMBS_DOWN, or both" });

function jsonArrayOrSelf(value: unknown): unknown[] {
  if (typeof value !== "string" || !value.trim().startsWith("[")) return [value];
  try {
    const parsed = JSON.parse(value);
    return Array.isArray(parsed) ? parsed : [value];
  } catch {
    return [value];
  }
}

const filters = {
  chatType: chatTypeList(),
  // The studio sends the array form (axios' chatType[]=A&chatType[]=B).
  "chatType[]": chatTypeList(),
  chatId: text(1000).optional(),
  memoryType: text(1000).optional(),
  sessionId: text(1000).optional(),
  startDate: dateQuery("start").optional(),
  endDate: dateQuery("end").optional(),
  feedbackType: z.enum(FEEDBACK_RATINGS).optional(),
};

export const ChatMessageQuery = z.object({
  ...filters,
  order: upperEnum(["ASC", "DESC"] as const)
    .optional()
    .openapi({ description: "By createdDate; ASC by default" }),
  feedback: boolQuery().optional().openapi({ description: "true: only API messages with feedback (and the user message before each)" }),
});

export const ChatMessageDeleteQuery = z.object({
  ...filters,
  hardDelete: boolQuery().optional(),
});

export const Feedback = z
  .object({
    id: z.string(),
    chatflowid: z.string(),
    chatId: z.string(),
    messageId: z.string(),
    rating: z.enum(FEEDBACK_RATINGS),
    content: z.string().nullable(),
    createdDate: z.string(),
  })
  .openapi("Feedback");

const jsonArray = () => z.array(z.unknown()).nullable();
export const ChatMessage = z
  .object({
    id: z.string(),
    role: z.enum(MESSAGE_ROLES),
    chatflowid: z.string(),
    content: z.string(),
    sourceDocuments: jsonArray(),
    usedTools: jsonArray(),
    fileAnnotations: jsonArray(),
    agentReasoning: jsonArray(),
    fileUploads: jsonArray(),
    artifacts: jsonArray(),
    action: z.unknown().nullable(),
    followUpPrompts: z.unknown().nullable(),
    chatType: z.enum(CHAT_TYPES),
    chatId: z.string(),
    memoryType: z.string().nullable(),
    sessionId: z.string().nullable(),
    leadEmail: z.string().nullable(),
    executionId: z.string().nullable().openapi({ description: "The agentflow execution this message belongs to" }),
    createdDate: z.string(),
    feedback: Feedback.optional(),
  })
  .openapi("ChatMessage");
