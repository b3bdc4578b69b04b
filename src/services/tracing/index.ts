// Tracing a run for the backends its chatflow's `analytic` switches on (Langfuse, LangSmith,
// LangWatch, Lunary, an OpenTelemetry collector). The run door starts a trace when a run starts (startTrace: undefined,
// at the cost of one check, for flows without analytic), runs the flow's work inside it (`around`)
// and its agentflow nodes as spans (`aroundNode`, the engine's port); when the work ends the trace
// is sent through waitUntil — after the answer, never holding it up, within TRACE_TIMEOUT_MS.
import type { Db, Env } from "../../env";
import { type TraceTarget, traceTargets } from "./config";
import { sendTrace } from "./send";
import { TraceRecorder, spanError } from "./trace";

export interface RunTrace {
  /** Runs the flow's work with the trace recording; then sends it, with `result`'s answer and ids (or the error). */
  around<T>(work: () => Promise<T>, result: (done: T) => { output?: string; metadata?: Record<string, string | undefined> }): Promise<T>;
  /** An agentflow node's work as a span (the engine's aroundNode port). */
  aroundNode<T>(
    node: { id: string; label: string; name: string },
    work: () => Promise<T>,
    resultOf: (done: T) => { input?: unknown; output?: unknown },
  ): Promise<T>;
}

export interface TraceDeps {
  db: Db;
  env: Env;
  waitUntil(work: Promise<unknown>): void;
}

export interface TraceStart {
  analytic: string | null;
  flowId: string;
  flowName: string;
  flowType: string;
  chatId: string;
  sessionId: string;
  question: string;
  chatType: string;
  /** The run's secrets: errors in the trace are scrubbed of them. */
  secrets: Set<string>;
  /** A detached run replaying finished steps sends nothing unless a step ran anew. */
  live?: () => boolean;
}

export function startTrace(deps: TraceDeps, start: TraceStart): RunTrace | undefined {
  const targets: TraceTarget[] | undefined = traceTargets(start.analytic);
  if (!targets) return undefined;
  const recorder = new TraceRecorder({
    name: start.flowName,
    sessionId: start.chatId,
    input: start.question,
    metadata: {
      chatflowId: start.flowId,
      flowType: start.flowType,
      chatId: start.chatId,
      sessionId: start.sessionId,
      chatType: start.chatType,
    },
  });
  // Tracing never fails a run: whatever goes wrong here is logged.
  const send = (result: { output?: string; error?: string; metadata?: Record<string, string | undefined> }) => {
    try {
      if (start.live && !start.live()) return;
      deps.waitUntil(sendTrace(deps, targets, recorder.finish(result), start.secrets));
    } catch (err) {
      console.error(`[tracing] trace ${recorder.trace.id} not sent: ${spanError(err)}`);
    }
  };
  return {
    async around(work, result) {
      let done;
      try {
        done = await recorder.within(work);
      } catch (err) {
        send({ error: spanError(err) });
        throw err;
      }
      send(result(done));
      return done;
    },
    aroundNode: (node, work, resultOf) => recorder.node(node, work, resultOf),
  };
}

export { traceTargets } from "./config";
