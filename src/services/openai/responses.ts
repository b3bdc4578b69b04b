// POST /openai/responses once the flow is found and the caller may run it: the run as one Response
// object, or as the Responses API's event stream — response.created, response.in_progress,
// response.output_item.added, response.content_part.added, response.output_text.delta …,
// response.output_text.done, response.content_part.done, response.output_item.done,
// response.completed — the sequence the `openai` SDK's ResponseStream and the AI SDK accumulate.
// A failure after the stream opened is response.failed then an `error` event (SDKs raise it). Kept
// (store, default true) once the run completed, before its last event goes out.
import { answerMetadata } from "./chat";
import { type ChatTarget, type StreamLog, abortWith, contentOf, runStreamed, streamFailure } from "./flow-stream";
import { openAIErrorBody } from "./errors";
import type { ResponseRun } from "./responses-request";
import { keptResponse, newResponseId, saveResponse } from "./responses-store";
import { type FlowRunDeps, type FlowRunOutcome, runFlowAsModel } from "./run-flow";
import { type LateStream, startLateStream } from "./stream";
import { type TokenUsage, usageOf } from "./usage";

type Status = "in_progress" | "completed" | "failed";

const outputText = (text: string) => ({ type: "output_text", text, annotations: [] as unknown[], logprobs: [] as unknown[] });

function messageItem(id: string, status: "in_progress" | "completed", text?: string) {
  return { id, type: "message", status, role: "assistant", content: text === undefined ? [] : [outputText(text)] };
}

const wireUsage = (u: TokenUsage) => ({
  input_tokens: u.promptTokens,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: u.completionTokens,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: u.totalTokens,
});

interface Shell {
  id: string;
  createdAt: number;
  model: string;
  run: ResponseRun;
}

function responseObject(
  shell: Shell,
  status: Status,
  extra: { output?: unknown[]; usage?: TokenUsage; metadata?: Record<string, string>; error?: { code: string; message: string } } = {},
) {
  const { echo } = shell.run;
  return {
    id: shell.id,
    object: "response",
    created_at: shell.createdAt,
    status,
    background: false,
    error: extra.error ?? null,
    incomplete_details: null,
    instructions: echo.instructions,
    max_output_tokens: echo.max_output_tokens,
    model: shell.model,
    output: extra.output ?? [],
    parallel_tool_calls: true,
    previous_response_id: echo.previous_response_id,
    reasoning: { effort: null, summary: null },
    service_tier: "default",
    store: echo.store,
    temperature: echo.temperature,
    text: echo.text,
    tool_choice: "auto",
    tools: [],
    top_p: echo.top_p,
    truncation: "disabled",
    usage: extra.usage ? wireUsage(extra.usage) : null,
    user: echo.user,
    metadata: { ...echo.metadata, ...extra.metadata },
  };
}

export type ResponseObject = ReturnType<typeof responseObject>;

/** The completed response. */
async function completed(shell: Shell, done: FlowRunOutcome, itemId: string, text: string): Promise<ResponseObject> {
  const usage = await usageOf(done.usage, shell.run.promptTexts, text);
  return responseObject(shell, "completed", {
    output: [messageItem(itemId, "completed", text)],
    usage,
    metadata: answerMetadata(done),
  });
}

/**
 * The completed response, made when the run records its messages and, with `store`, written in
 * their batch (`keep`, for runFlowAsModel): one round trip, the response and its messages together.
 * `response(done, text)` answers the one made then; a run whose record did not make it (none is
 * expected) has it made and stored after.
 */
function responseKeeper(deps: FlowRunDeps, shell: Shell, target: ChatTarget, itemId: string) {
  let made: ResponseObject | undefined;
  const rowOf = (done: FlowRunOutcome, response: ResponseObject) => ({
    id: shell.id,
    chatflowid: target.flow.id,
    chatId: done.chatId,
    sessionId: done.sessionId,
    executionId: done.executionId ?? null,
    response: JSON.stringify(response),
  });
  const keep = async (done: FlowRunOutcome, text: string) => {
    made = await completed(shell, done, itemId, text);
    return [keptResponse(deps, rowOf(done, made), done.chatMessageId)];
  };
  const response = async (done: FlowRunOutcome, text: string) => {
    if (made) return made;
    const late = await completed(shell, done, itemId, text);
    if (shell.run.echo.store) await saveResponse(deps, rowOf(done, late));
    return late;
  };
  return { keep: shell.run.echo.store ? keep : undefined, response };
}

const newShell = (target: ChatTarget, run: ResponseRun): Shell => ({
  id: newResponseId(),
  createdAt: Math.floor(Date.now() / 1000),
  model: target.model,
  run,
});
const newItemId = () => `msg_${crypto.randomUUID().replaceAll("-", "")}`;

export async function createResponse(
  deps: FlowRunDeps,
  target: ChatTarget,
  run: ResponseRun,
  signal: AbortSignal,
): Promise<ResponseObject> {
  const shell = newShell(target, run);
  const kept = responseKeeper(deps, shell, target, newItemId());
  const keep = kept.keep && ((done: FlowRunOutcome) => kept.keep!(done, contentOf(done, run)));
  const done = await runFlowAsModel(deps, target.flow, target.lookups, run.input, { signal, keep });
  return kept.response(done, contentOf(done, run));
}

export function streamResponse(deps: FlowRunDeps, target: ChatTarget, run: ResponseRun, log: StreamLog, signal: AbortSignal): LateStream {
  const shell = newShell(target, run);
  const itemId = newItemId();
  const kept = responseKeeper(deps, shell, target, itemId);
  const controller = abortWith(signal);
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`;
  const at = { item_id: itemId, output_index: 0, content_index: 0 };
  return startLateStream({
    preamble(out) {
      const started = responseObject(shell, "in_progress");
      out.write(event("response.created", { response: started }));
      out.write(event("response.in_progress", { response: started }));
      out.write(event("response.output_item.added", { output_index: 0, item: messageItem(itemId, "in_progress") }));
      out.write(event("response.content_part.added", { ...at, part: outputText("") }));
    },
    async run(open) {
      const { done, text, whole } = await runStreamed(
        deps,
        target,
        run,
        controller.signal,
        (token) => open().write(event("response.output_text.delta", { ...at, delta: token, logprobs: [] })),
        kept.keep,
      );
      const response = await kept.response(done, text);
      const out = open();
      if (whole) out.write(event("response.output_text.delta", { ...at, delta: text, logprobs: [] }));
      out.write(event("response.output_text.done", { ...at, text, logprobs: [] }));
      out.write(event("response.content_part.done", { ...at, part: outputText(text) }));
      out.write(event("response.output_item.done", { output_index: 0, item: messageItem(itemId, "completed", text) }));
      out.write(event("response.completed", { response }));
    },
    failed(err, out) {
      const { status, message } = streamFailure(err, log, "openai responses stream");
      const { error } = openAIErrorBody(status, message, err);
      const code = error.code ?? "server_error";
      out.write(
        event("response.failed", {
          response: responseObject(shell, "failed", {
            output: [messageItem(itemId, "in_progress")],
            error: { code, message: error.message },
          }),
        }),
      );
      // OpenAI's stream-level error event: the openai SDK throws an APIError on it, the AI SDK reports an error part.
      out.write(event("error", { code, message: error.message, param: error.param, error }));
    },
    onGone: () => controller.abort(new Error("Client disconnected")),
  });
}
