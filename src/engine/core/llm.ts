// Calling a chat model from a node: streamed to the sink token by token when there is one,
// else one answer. Errors keep their ApiError status (502/504 from providers); an abort stays one.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import { contentText } from "../../providers/chat/messages";
import { modelFailure } from "./errors";
import type { RunContext } from "./ports";
import type { StreamSink } from "./types";

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
