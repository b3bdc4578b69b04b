// POST /openai/chat/completions once the flow is found and the caller may run it: the run as one
// `chat.completion`, or as `chat.completion.chunk` frames ending with `data: [DONE]`. Each answer
// carries `metadata` {chatId, sessionId, chatMessageId, executionId?, paused?} beside OpenAI's fields.
import type { ChatCompletionBody } from "../../schemas/openai";
import type { ChatRun } from "./chat-request";
import { openAIErrorBody } from "./errors";
import { type ChatTarget, type StreamLog, abortWith, contentOf, runStreamed, streamFailure } from "./flow-stream";

export type { ChatTarget } from "./flow-stream";
import { type FlowRunDeps, type FlowRunOutcome, runFlowAsModel } from "./run-flow";
import { type LateStream, startLateStream } from "./stream";
import { type TokenUsage, usageOf } from "./usage";

const completionId = () => `chatcmpl-${crypto.randomUUID().replaceAll("-", "")}`;
const unixNow = () => Math.floor(Date.now() / 1000);

export function answerMetadata(done: FlowRunOutcome) {
  return {
    chatId: done.chatId,
    sessionId: done.sessionId,
    chatMessageId: done.chatMessageId,
    ...(done.executionId ? { executionId: done.executionId } : {}),
    ...(done.paused ? { paused: "true" } : {}), // a string: OpenAI types metadata values as strings
  };
}

const wireUsage = (u: TokenUsage) => ({
  prompt_tokens: u.promptTokens,
  completion_tokens: u.completionTokens,
  total_tokens: u.totalTokens,
});

export async function completeChat(deps: FlowRunDeps, target: ChatTarget, run: ChatRun, signal: AbortSignal) {
  const done = await runFlowAsModel(deps, target.flow, target.lookups, run.input, { signal });
  const content = contentOf(done, run);
  const usage = await usageOf(done.usage, run.promptTexts, content);
  return {
    id: completionId(),
    object: "chat.completion" as const,
    created: unixNow(),
    model: target.model,
    system_fingerprint: null,
    choices: [
      { index: 0, message: { role: "assistant" as const, content, refusal: null }, logprobs: null, finish_reason: "stop" as const },
    ],
    usage: wireUsage(usage),
    metadata: answerMetadata(done),
  };
}

/** The run as `chat.completion.chunk` frames; `stream_options.include_usage` adds the usage chunk before `[DONE]`. */
export function streamChat(
  deps: FlowRunDeps,
  target: ChatTarget,
  run: ChatRun,
  body: ChatCompletionBody,
  log: StreamLog,
  signal: AbortSignal,
): LateStream {
  const id = completionId();
  const created = unixNow();
  const includeUsage = !!body.stream_options?.include_usage;
  const controller = abortWith(signal);
  const data = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;
  const chunk = (delta: Record<string, unknown>, finish: "stop" | null = null, extra: Record<string, unknown> = {}) =>
    data({
      id,
      object: "chat.completion.chunk",
      created,
      model: target.model,
      system_fingerprint: null,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(includeUsage ? { usage: null } : {}),
      ...extra,
    });
  return startLateStream({
    preamble: (out) => out.write(chunk({ role: "assistant", content: "" })),
    async run(open) {
      const {
        done,
        text: content,
        whole,
      } = await runStreamed(deps, target, run, controller.signal, (token) => open().write(chunk({ content: token })));
      const out = open();
      if (whole) out.write(chunk({ content }));
      out.write(chunk({}, "stop", { metadata: answerMetadata(done) }));
      if (includeUsage) {
        const usage = await usageOf(done.usage, run.promptTexts, content);
        out.write(
          data({
            id,
            object: "chat.completion.chunk",
            created,
            model: target.model,
            system_fingerprint: null,
            choices: [],
            usage: wireUsage(usage),
          }),
        );
      }
      out.write("data: [DONE]\n\n");
    },
    failed(err, out) {
      // An error object as a data frame, and no [DONE]: the openai SDK throws an APIError on it, the AI SDK reports an error part.
      const { status, message } = streamFailure(err, log, "openai chat stream");
      out.write(data(openAIErrorBody(status, message, err)));
    },
    onGone: () => controller.abort(new Error("Client disconnected")),
  });
}
