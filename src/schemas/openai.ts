// Request and response bodies of the OpenAI-compatible API (API.md "OpenAI-compatible API"). Bodies
// are loose: OpenAI adds fields often, and a field edgeflow does not know is ignored unless it
// changes the answer's meaning — those the services refuse by name (services/openai/*-request.ts).
import { z } from "@hono/zod-openapi";
import { text } from "./common";

const count = () => z.number().int().nonnegative();

export const OpenAIMetadata = z.record(z.string(), z.unknown()).openapi({
  description: "`chatId` (continue that chat), `executionId` (resume that paused agentflow run); other keys are echoed on Responses",
});

const ContentPart = z.looseObject({ type: z.string(), text: z.string().optional() });

export const ChatMessage = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool", "function"]),
  content: z.union([z.string(), z.array(ContentPart)]).nullish(),
  name: z.string().optional(),
});

export const ChatCompletionRequest = z
  .looseObject({
    model: text(1000).pipe(z.string().min(1)),
    messages: z.array(ChatMessage).min(1).max(10_000),
    stream: z.boolean().nullish(),
    stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
    user: text(1000).nullish(),
    metadata: OpenAIMetadata.nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    max_tokens: z.number().int().positive().nullish(),
    max_completion_tokens: z.number().int().positive().nullish(),
    n: z.number().int().positive().nullish(),
    tools: z.array(z.unknown()).nullish(),
    tool_choice: z.unknown().optional(),
    functions: z.array(z.unknown()).nullish(),
    function_call: z.unknown().optional(),
    logprobs: z.boolean().nullish(),
    top_logprobs: count().nullish(),
    response_format: z.looseObject({ type: z.string() }).nullish(),
    modalities: z.array(z.string()).nullish(),
    audio: z.unknown().optional(),
    web_search_options: z.unknown().optional(),
  })
  .openapi("OpenAIChatCompletionRequest");

export type ChatCompletionBody = z.infer<typeof ChatCompletionRequest>;

const InputItem = z.looseObject({
  type: z.string().optional(),
  role: z.enum(["system", "developer", "user", "assistant"]).optional(),
  content: z.union([z.string(), z.array(ContentPart)]).optional(),
});

export const ResponseRequest = z
  .looseObject({
    model: text(1000).pipe(z.string().min(1)),
    input: z.union([z.string(), z.array(InputItem).min(1).max(10_000)]),
    instructions: z.string().nullish(),
    previous_response_id: text(200).nullish(),
    stream: z.boolean().nullish(),
    store: z.boolean().nullish(),
    user: text(1000).nullish(),
    metadata: OpenAIMetadata.nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    max_output_tokens: z.number().int().positive().nullish(),
    tools: z.array(z.unknown()).nullish(),
    tool_choice: z.unknown().optional(),
    text: z.looseObject({ format: z.looseObject({ type: z.string() }).nullish() }).nullish(),
    background: z.boolean().nullish(),
    conversation: z.unknown().optional(),
    prompt: z.unknown().optional(),
    top_logprobs: count().nullish(),
  })
  .openapi("OpenAIResponseRequest");

export type ResponseBody = z.infer<typeof ResponseRequest>;

export const ResponseIdParam = z.object({ id: text(200).pipe(z.string().min(1)) });

const AnswerMetadata = z.object({
  chatId: z.string(),
  sessionId: z.string(),
  chatMessageId: z.string(),
  executionId: z.string().optional(),
  paused: z.literal("true").optional(),
});

export const OpenAIModelList = z
  .object({
    object: z.literal("list"),
    data: z.array(z.object({ id: z.string(), object: z.literal("model"), created: z.number(), owned_by: z.string(), name: z.string() })),
  })
  .openapi("OpenAIModelList");

export const ChatCompletion = z
  .object({
    id: z.string(),
    object: z.literal("chat.completion"),
    created: z.number(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number(),
        message: z.object({ role: z.literal("assistant"), content: z.string(), refusal: z.null() }),
        logprobs: z.null(),
        finish_reason: z.literal("stop"),
      }),
    ),
    usage: z.object({ prompt_tokens: count(), completion_tokens: count(), total_tokens: count() }),
    metadata: AnswerMetadata,
  })
  .openapi("OpenAIChatCompletion");

export const OpenAIResponse = z
  .looseObject({
    id: z.string(),
    object: z.literal("response"),
    created_at: z.number(),
    status: z.string(),
    model: z.string(),
    output: z.array(z.unknown()),
    usage: z.object({ input_tokens: count(), output_tokens: count(), total_tokens: count() }).nullable(),
    previous_response_id: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
  })
  .openapi("OpenAIResponse");

export const OpenAIErrorResponse = z
  .object({
    error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string().nullable() }),
  })
  .openapi("OpenAIError");
