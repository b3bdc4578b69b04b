// A new agentflow run's beginning: its ids, the session's previous execution and stored history,
// and its execution — new (its first checkpoint inserts the row), or the row made when a detached
// run was accepted.
import type { ChatTurn } from "../../engine";
import type { ExecutedData } from "../../engine/agentflow/types";
import { newId } from "../../lib/ids";
import { acceptedExecution, executedDataOf, newExecution, previousExecutionData } from "../executions";
import type { Beginning } from "./agentflow-beginning";
import { type RunBase, askedSessionOf, runIds } from "./base";
import type { RunDeps } from "./types";

/**
 * A new run's previous execution and stored history: none for a session the request did not name
 * (a new one), those the look-ups read (lookups.ts) when they did, else read now beside each other.
 */
async function chatSessionStart(
  deps: RunDeps,
  base: Omit<RunBase, "release">,
  sessionId: string,
  own?: string,
): Promise<[ExecutedData[] | undefined, ChatTurn[]]> {
  if (askedSessionOf(base.input) === undefined) return [undefined, []];
  const read = base.session;
  if (read && read.id === sessionId && !own) return [executedDataOf(read.previousExecution), read.history.slice()];
  return Promise.all([previousExecutionData(deps, base.flow.id, sessionId, own), deps.runtime.memory.load(base.flow.id, sessionId)]);
}

/** `accepted`: a detached run's execution, made when it was accepted (RunRequest.executionId). */
export async function beginNew(deps: RunDeps, base: Omit<RunBase, "release">, accepted?: string): Promise<Beginning> {
  const ids = runIds(base.input);
  const [previousExecution, pastHistory] = await chatSessionStart(deps, base, ids.sessionId, accepted);
  const run = { id: accepted ?? newId(), agentflowId: base.flow.id, sessionId: ids.sessionId };
  const execution = accepted ? acceptedExecution(deps, run) : newExecution(deps, run);
  return { ids, execution, pastHistory, previousExecution };
}
