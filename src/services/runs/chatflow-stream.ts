// A chatflow run delivered as Flowise's event stream: the run's tokens and events as they happen,
// then what the run gave that was not streamed (the text of a node that could not stream, its
// sources, its tools), the metadata frame the widget needs (chatMessageId for feedback, the
// follow-up prompts), and end.
// A failure is an error frame then end; the client going away aborts the run.
import type { StreamSink } from "../../engine";
import { ApiError } from "../../errors";
import { errorText } from "../../lib/redact";
import { SseWriter } from "../../stream/sse";
import { chatflowAnswer } from "./answers";
import { type ChatflowRun, completeChatflow } from "./chatflow";

/**
 * Starts the run (kept alive by deps.waitUntil) and answers the event stream's body at once.
 * `sse`: a stream whose head already went out (early-stream.ts), whose going away aborts the run.
 */
export function streamChatflow(run: ChatflowRun, sse = new SseWriter(() => run.controller.abort(new Error("Client disconnected")))) {
  const { deps } = run;
  let tokens = 0;
  let toolsSent = 0; // how many used tools the run already streamed (agents send them as they complete)
  const sink: StreamSink = {
    token: (t) => {
      tokens++;
      sse.token(t);
    },
    event: (name, data) => {
      if (name === "usedTools" && Array.isArray(data)) toolsSent = data.length;
      sse.event(name, data);
    },
  };
  const work = (async () => {
    try {
      const done = await completeChatflow(run, sink);
      const answer = chatflowAnswer(run, done);
      if (!tokens && answer.text) sse.token(answer.text); // a node that could not stream still answers
      if (answer.sourceDocuments.length) sse.sourceDocuments(answer.sourceDocuments);
      if (answer.usedTools.length && answer.usedTools.length !== toolsSent) sse.usedTools(answer.usedTools);
      if (answer.artifacts) sse.event("artifacts", answer.artifacts); // after the tools, as Flowise's Tool Agent
      sse.event("metadata", {
        chatId: answer.chatId,
        chatMessageId: answer.chatMessageId,
        question: answer.question,
        sessionId: answer.sessionId,
        memoryType: answer.memoryType,
        // The stored JSON text, as Flowise's metadata frame has it (the widget JSON.parses it once).
        ...(done.followUpPrompts ? { followUpPrompts: done.followUpPrompts } : {}),
      });
    } catch (err) {
      // completeChatflow scrubbed it
      if (!(err instanceof ApiError)) console.error(`[${deps.requestId}] prediction stream failed: ${errorText(err)}`);
      sse.error(err instanceof ApiError ? err.message : "The chatflow failed while answering");
    } finally {
      await sse.end();
    }
  })();
  deps.waitUntil(work);
  return sse.readable;
}
