import { z } from "@hono/zod-openapi";
import { text } from "./common";

const role = z
  .string()
  .transform((r) => (r === "user" || r === "human" ? "userMessage" : r === "assistant" || r === "ai" ? "apiMessage" : r))
  .pipe(z.enum(["userMessage", "apiMessage"]));

export const PredictionRequest = z
  .object({
    question: z.string().optional(),
    streaming: z.boolean().optional(),
    chatId: text(1000).pipe(z.string().min(1)).optional(),
    overrideConfig: z.record(z.string(), z.unknown()).optional(),
    // Flowise's SDK types history entries as {type, message}; the service document as {role, content}.
    history: z
      .array(
        z.preprocess(
          (h) =>
            h && typeof h === "object" && "message" in h && !("content" in h)
              ? { role: (h as { type?: unknown }).type, content: (h as { message?: unknown }).message }
              : h,
          z.object({ role, content: z.string() }),
        ),
      )
      .max(10_000)
      .optional(),
    uploads: z
      .array(
        z.object({
          type: z.string().max(50),
          name: text(1000),
          data: z.string().optional(),
          mime: text(200).optional(),
        }),
      )
      .max(50)
      .optional(),
    form: z.record(z.string(), z.unknown()).optional(),
    humanInput: z.record(z.string(), z.unknown()).optional(),
    // Agentflow V1 clients answer an approval with the button's label as question and the action shown.
    action: z
      .object({ mapping: z.object({ approve: z.string().optional(), reject: z.string().optional() }).passthrough().optional() })
      .passthrough()
      .optional(),
    leadEmail: text(1000).optional(),
    // Asynchronous runs (API.md "Asynchronous runs"): answered 202 at once, run detached.
    async: z.boolean().optional(),
    callbackUrl: z.string().max(2000).optional(),
  })
  // A recording (the widget's microphone) is the question once heard (docs/speech.md).
  .refine(
    (b) => b.question !== undefined || b.form !== undefined || b.humanInput !== undefined || b.uploads?.some((u) => u.type === "audio"),
    {
      message: "question is required",
      path: ["question"],
    },
  )
  .refine((b) => !(b.async && b.streaming), {
    message: "async and streaming cannot be used together (an asynchronous run's frames are at GET /executions/{id}/events)",
    path: ["async"],
  })
  .refine((b) => b.callbackUrl === undefined || b.async === true, {
    message: "callbackUrl is only for async: true runs",
    path: ["callbackUrl"],
  })
  .openapi("PredictionRequest");

export type PredictionInput = z.infer<typeof PredictionRequest>;

export const PredictionResponse = z
  .object({
    text: z.string(),
    json: z.unknown().nullable(),
    question: z.string(),
    chatId: z.string(),
    chatMessageId: z.string(),
    sessionId: z.string(),
    memoryType: z.string().nullable(),
    sourceDocuments: z.array(z.unknown()),
    usedTools: z.array(z.unknown()),
    isStreamValid: z.boolean(),
    // A Tool Agent's tools' artifacts ({type, data}), when one made some.
    artifacts: z.array(z.unknown()).optional(),
    // Multi-agent flows (Agentflow V1): one entry per agent step, and a pending approval.
    agentReasoning: z.array(z.unknown()).optional(),
    action: z.unknown().optional(),
    // The flow's follow-up prompts (chatflow followUpPrompts on): Flowise's double-encoded JSON text of the questions.
    followUpPrompts: z.string().optional(),
  })
  .openapi("PredictionResponse");

export const DetachedRunResponse = z
  .object({
    executionId: z.string(),
    chatId: z.string(),
    sessionId: z.string(),
    status: z.literal("INPROGRESS"),
  })
  .openapi("DetachedRun");
