// A resume run in the request (humanInput, no async): the paused execution found (the one named, or
// the session's newest pause) and claimed — of two concurrent resumes one gets 409 — then run here.
// A pause of a detached run may be resumed this way too: its Workflow is told when the run is done.
import type { HumanInput } from "../../engine/agentflow/types";
import { claimForResume, findResumeTarget } from "../executions";
import type { Beginning } from "./agentflow-beginning";
import { type RunBase, askedSessionOf, runIds } from "./base";
import { checkStartNode } from "./human-input";
import type { RunDeps } from "./types";

/** `named`: the execution the human input names (humanInput.executionId), if it does. */
export async function resumeInRequest(
  deps: RunDeps,
  base: Omit<RunBase, "release">,
  human: HumanInput,
  named: string | undefined,
): Promise<Beginning> {
  const { flow, input } = base;
  const target = await findResumeTarget(deps, flow.id, askedSessionOf(input), named);
  checkStartNode(human, target.row.id, target.executedData);
  const ids = runIds(input, target.row.sessionId);
  const [execution, pastHistory] = await Promise.all([claimForResume(deps, target), deps.runtime.memory.load(flow.id, ids.sessionId)]);
  return {
    ids,
    execution,
    pastHistory,
    resume: { executionId: target.row.id, executedData: target.executedData, humanInput: human },
    detachedResume: target.row.detached,
  };
}
