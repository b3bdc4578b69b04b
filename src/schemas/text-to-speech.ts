import { z } from "@hono/zod-openapi";
import { text, uuid } from "./common";

/** Flowise's body: a chatflow's settings speak (`chatflowId`), or the named provider's (the studio's "test voice"). */
export const SpeakBody = z
  .object({
    text: z.string().trim().min(1, "text is required").max(5000, "must be at most 5000 characters"),
    chatflowId: uuid().optional(),
    chatId: text(1000).optional(),
    chatMessageId: text(1000).optional(),
    provider: text(100).optional(),
    credentialId: text(100).optional(),
    voice: text(200).optional(),
    model: text(200).optional(),
  })
  .openapi("TextToSpeechRequest");

export const AbortSpeechBody = z
  .object({
    chatflowId: text(100).pipe(z.string().min(1)),
    chatId: text(1000).pipe(z.string().min(1)),
    chatMessageId: text(1000).pipe(z.string().min(1)),
  })
  .openapi("TextToSpeechAbort");

export const AbortSpeechAnswer = z.object({ message: z.string(), chatId: z.string(), chatMessageId: z.string(), aborted: z.boolean() });

export const VoicesQuery = z.object({
  provider: text(100)
    .optional()
    .openapi({ description: "openai, elevenlabs or cloudflareWorkersAI (the default when Workers AI is bound)" }),
  credentialId: text(100).optional(),
  model: text(200)
    .optional()
    .openapi({ description: "cloudflareWorkersAI: @cf/deepgram/aura-1 (speakers) or @cf/myshell-ai/melotts (languages)" }),
});

export const Voice = z.object({ id: z.string(), name: z.string(), category: z.string().optional() }).openapi("Voice");
