// One chat model call of an agentflow node: streamed (tokens to the node's channel as they come)
// or whole; the full reply (tool calls, usage) either way. Failures are the provider's 502/504,
// an abort stays an abort.
import { type AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { Runnable } from "@langchain/core/runnables";
import { contentText } from "../../providers/chat/messages";
import { modelFailure } from "../core/errors";

type Model = Pick<Runnable<BaseMessage[], BaseMessage>, "invoke" | "stream">;

export async function callChat(
  model: Model,
  messages: BaseMessage[],
  signal: AbortSignal,
  onToken?: (text: string) => void,
): Promise<AIMessageChunk> {
  try {
    if (!onToken) {
      const reply = await model.invoke(messages, { signal });
      if (reply instanceof AIMessageChunk) return reply;
      const ai = reply as AIMessage;
      return new AIMessageChunk({
        content: ai.content,
        tool_calls: ai.tool_calls ?? [],
        usage_metadata: ai.usage_metadata,
        response_metadata: ai.response_metadata,
        additional_kwargs: ai.additional_kwargs,
      });
    }
    let whole: AIMessageChunk | undefined;
    for await (const chunk of await model.stream(messages, { signal })) {
      const piece = chunk instanceof AIMessageChunk ? chunk : new AIMessageChunk({ content: chunk.content });
      const text = contentText(piece.content);
      if (text) onToken(text);
      whole = whole ? whole.concat(piece) : piece;
    }
    return whole ?? new AIMessageChunk("");
  } catch (err) {
    throw modelFailure(err, { signal });
  }
}

/** Flowise's `timeMetadata` and the common output fields of a model reply. */
export function replyOutput(reply: AIMessageChunk, start: number, end: number): Record<string, unknown> {
  const output: Record<string, unknown> = { content: contentText(reply.content), timeMetadata: { start, end, delta: end - start } };
  output.calledTools = reply.tool_calls ?? [];
  if (reply.usage_metadata) output.usageMetadata = { ...reply.usage_metadata };
  if (reply.response_metadata && Object.keys(reply.response_metadata).length) output.responseMetadata = reply.response_metadata;
  return output;
}

/** The `calledTools` / `usageMetadata` frames after a streamed answer (as Flowise sends them). */
export function afterStream(reply: AIMessageChunk, emit: (name: string, data: unknown) => void): void {
  emit(
    "calledTools",
    (reply.tool_calls ?? []).map((c) => ({ tool: c.name || "tool", toolInput: c.args, toolOutput: "" })),
  );
  if (reply.usage_metadata) emit("usageMetadata", reply.usage_metadata);
}
