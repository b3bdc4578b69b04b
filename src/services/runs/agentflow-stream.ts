// An agentflow's event stream in Flowise's frames (AGENTFLOW.md §8): the runtime's events as they
// happen (no `start`), then `metadata`, or `error`, and `end`. The stream opens with the run's
// first event; a run refused before it (a 400, a 409 resume) answers an ordinary error instead.
import { ApiError } from "../../errors";
import { SseWriter } from "../../stream/sse";
import { completeAgentflow } from "./agentflow";
import type { AgentflowRun } from "./agentflow-start";

/** The stream's body once the run's first event exists; the rest of the run is kept alive by deps.waitUntil. */
export function streamAgentflow(run: AgentflowRun): Promise<ReadableStream<Uint8Array>> {
  const abort = () => run.controller.abort(new Error("Client disconnected"));
  const onFault = (err: unknown) => console.error(`[${run.deps.requestId}] agentflow stream failed:`, err);
  let ended!: () => void;
  const work = new Promise<void>((r) => (ended = r));
  let sse: SseWriter | undefined;
  return new Promise((resolve, reject) => {
    const open = (): SseWriter => {
      if (!sse) {
        sse = new SseWriter(abort);
        run.deps.waitUntil(work);
        resolve(sse.readable);
      }
      return sse;
    };
    completeAgentflow(run, { event: (name, data) => open().event(name, data) })
      .then(
        (done) => {
          const { outcome } = done;
          const form = run.input.form && Object.keys(run.input.form).length;
          open().event("metadata", {
            chatId: run.ctx.chatId,
            chatMessageId: done.chatMessageId,
            ...(form ? {} : { question: run.input.question ?? "" }),
            sessionId: run.ctx.sessionId,
            ...(outcome.state === "STOPPED" && (outcome.v1Action ?? outcome.action) ? { action: outcome.v1Action ?? outcome.action } : {}),
            ...(done.followUpPrompts ? { followUpPrompts: done.followUpPrompts } : {}),
          });
        },
        (err: unknown) => {
          if (!sse) return reject(err);
          if (!(err instanceof ApiError)) onFault(err);
          sse.error(err instanceof ApiError ? err.message : "The agentflow failed while answering");
        },
      )
      .then(() => sse?.end())
      .finally(ended);
  });
}
