// Deliver: how the answer leaves, chosen by the request. JSON waits for the run (execute → record)
// and answers its body; a stream starts the run and answers Flowise's frames as they happen — a
// chatflow's at once, an agentflow's with its first event (a refusal before it is an ordinary
// error). A flow that cannot stream (a chatflow's plan, an agentflow's post-processing) answers
// JSON, as Flowise does. A detached run is not delivered here: the door accepts it (detach.ts) and
// its Workflow runs it with JSON delivery into the execution's row and event log.
import { ApiError } from "../../errors";
import { completeAgentflow } from "./agentflow";
import type { AgentflowRun } from "./agentflow-start";
import { streamAgentflow } from "./agentflow-stream";
import { type RunAnswer, agentflowAnswer, chatflowAnswer } from "./answers";
import { type ChatflowRun, completeChatflow } from "./chatflow";
import { streamChatflow } from "./chatflow-stream";
import type { DetachedRun } from "./detach";
import type { DeliveryKind } from "./triggers";
import type { RunFrames } from "./types";

/** The answer as the delivery chose it: a JSON body, Flowise's event stream, or a detached run accepted (202). */
export type Delivered =
  | { kind: "json"; body: RunAnswer }
  | { kind: "sse"; body: ReadableStream<Uint8Array> }
  | { kind: "detached"; body: DetachedRun };

/** `frames`: a JSON run's frames go there too as they happen (a detached run's event log). */
export async function deliver(run: ChatflowRun | AgentflowRun, delivery: DeliveryKind, frames?: RunFrames): Promise<Delivered> {
  if (delivery === "detached") throw new ApiError(500, "A detached run is delivered by its Workflow, not here");
  if (run.kind === "chatflow") {
    if (delivery === "sse" && run.streamable) return { kind: "sse", body: streamChatflow(run) };
    return { kind: "json", body: chatflowAnswer(run, await completeChatflow(run, frames)) };
  }
  if (run.request.streaming && delivery === "sse") return { kind: "sse", body: await streamAgentflow(run) };
  const events = frames ? { event: frames.event, hold: frames.hold } : undefined;
  return { kind: "json", body: agentflowAnswer(run, await completeAgentflow(run, events)) };
}
