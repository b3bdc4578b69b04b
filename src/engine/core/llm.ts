// Calling a chat model from a node: streamed to the sink token by token when there is one,
// else one answer. Errors keep their ApiError status (502/504 from providers); an abort stays one.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import { ChatModelBase } from "../../providers/chat/base";
import { contentText } from "../../providers/chat/messages";
import { modelFailure } from "./errors";
import type { RunContext } from "./ports";
import type { StreamSink } from "./types";

export async function callModel(model: BaseChatModel, messages: BaseMessage[], ctx: RunContext, sink?: StreamSink): Promise<string> {
  try {
    // Our own models skip LangChain's per-call and per-chunk machinery when nothing listens to it.
    const direct = model instanceof ChatModelBase && model.direct ? model : undefined;
    if (sink) {
      let text = "";
      const tokens = direct ? direct.textStream(messages, ctx.signal) : textsOf(await model.stream(messages, { signal: ctx.signal }));
      for await (const token of tokens) {
        text += token;
        sink.token(token);
      }
      return text;
    }
    const message = direct ? await direct.generateText(messages, ctx.signal) : await model.invoke(messages, { signal: ctx.signal });
    return contentText(message.content);
  } catch (err) {
    throw modelFailure(err, ctx);
  }
}

async function* textsOf(stream: AsyncIterable<{ content: BaseMessage["content"] }>): AsyncGenerator<string> {
  for await (const chunk of stream) {
    const token = contentText(chunk.content);
    if (token) yield token;
  }
}
