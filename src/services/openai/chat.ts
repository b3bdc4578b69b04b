// POST /openai/chat/completions once the flow is found and the caller may run it: the run as one
// `chat.completion`, or as `chat.completion.chunk` frames ending with `data: [DONE]`. Each answer
// carries `metadata` {chatId, sessionId, chatMessageId, executionId?, paused?} beside OpenAI's fields.
import { ApiError } from "../../errors";
import { errorText, redact } from "../../lib/redact";
import type { ChatCompletionBody } from "../../schemas/openai";
import type { ChatRun } from "./chat-request";
import { openAIErrorBody } from "./errors";
import { type FlowRunDeps, type FlowRunOutcome, type RunLookups, type RunnableFlow, runFlowAsModel } from "./run-flow";
import { type LateStream, startLateStream } from "./stream";
import { type TokenUsage, usageOf } from "./usage";

export interface ChatTarget {
  flow: RunnableFlow;
  /** The flow's look-ups (one D1 batch), which the run goes on with. */
  lookups: RunLookups;
  /** The model as the request named it: answers echo it. */
  model: string;
}

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

/** The answer's content: with a JSON response_format, the flow's structured output as JSON text. */
function contentOf(done: FlowRunOutcome, run: ChatRun): string {
  return run.wantsJson && done.json !== undefined && done.json !== null ? JSON.stringify(done.json) : done.text;
}

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

export interface StreamLog {
  requestId: string;
  /** Secrets a stray error message must not carry (the worker's). */
  secrets: string[];
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
      let sent = "";
      // A JSON response_format answers the structured output whole, at the end.
      const onToken = run.wantsJson
        ? undefined
        : (token: string) => {
            sent += token;
            open().write(chunk({ content: token }));
          };
      const done = await runFlowAsModel(deps, target.flow, target.lookups, run.input, { signal: controller.signal, onToken });
      const content = done.streamed ? sent : contentOf(done, run);
      const out = open();
      if (!done.streamed && content) out.write(chunk({ content }));
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
      const status = err instanceof ApiError ? err.status : 500;
      if (!(err instanceof ApiError)) console.error(`[${log.requestId}] openai chat stream failed: ${redact(errorText(err), log.secrets)}`);
      const message = err instanceof ApiError ? err.message : "The flow failed while answering";
      out.write(data(openAIErrorBody(status, redact(message, log.secrets), err)));
    },
    onGone: () => controller.abort(new Error("Client disconnected")),
  });
}

/** A controller that aborts with `signal` (the request's: the client hung up) and also on its own (the stream's reader went away). */
export function abortWith(signal: AbortSignal): AbortController {
  const controller = new AbortController();
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener("abort", () => controller.abort(signal.reason ?? new Error("Client disconnected")), { once: true });
  return controller;
}
