// Calling a chat model from a node: streamed to the sink token by token when there is one,
// else one answer. Errors keep their ApiError status (502/504 from providers); an abort stays one.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import { ApiError, badGateway } from "../errors";
import { RunAborted } from "../providers/chat/http";
import { contentText } from "../providers/chat/messages";
import type { RunContext, StreamSink } from "./types";

export async function callModel(model: BaseChatModel, messages: BaseMessage[], ctx: RunContext, sink?: StreamSink): Promise<string> {
  try {
    if (sink) {
      let text = "";
      const stream = await model.stream(messages, { signal: ctx.signal });
      for await (const chunk of stream) {
        const token = contentText(chunk.content);
        if (!token) continue;
        text += token;
        sink.token(token);
      }
      return text;
    }
    const message = await model.invoke(messages, { signal: ctx.signal });
    return contentText(message.content);
  } catch (err) {
    throw modelFailure(err, ctx);
  }
}

/** Whatever a model call threw, as the error the run reports. */
export function modelFailure(err: unknown, ctx: Pick<RunContext, "signal">): Error {
  if (ctx.signal?.aborted) return new RunAborted();
  if (err instanceof ApiError || err instanceof RunAborted) return err;
  if (err instanceof Error && err.name === "AbortError") return new RunAborted();
  return badGateway(`Model call failed: ${err instanceof Error ? err.message : String(err)}`);
}
