// A detached run's resume, run by its Workflow: the pause was claimed when the resume was accepted
// (detach.ts); it is read here in a durable step, so a replay resumes from the same point, whatever
// the row says by then.
import type { HumanInput } from "../../engine/agentflow/types";
import { badRequest } from "../../errors";
import { acceptedExecution, claimedResumeTarget } from "../executions";
import type { Beginning } from "./agentflow-beginning";
import { type RunBase, runIds } from "./base";
import { checkStartNode } from "./human-input";
import type { RunSteps } from "./steps";
import type { RunDeps } from "./types";

export async function resumeDetached(
  deps: RunDeps,
  base: Omit<RunBase, "release">,
  human: HumanInput,
  named: string | undefined,
  steps: RunSteps,
): Promise<Beginning> {
  const { flow, input } = base;
  if (!named) throw badRequest("An asynchronous resume names the paused execution: humanInput.executionId");
  const target = await steps.do("resume", async () => {
    const found = await claimedResumeTarget(deps, flow.id, named);
    checkStartNode(human, found.row.id, found.executedData);
    return { id: found.row.id, sessionId: found.row.sessionId, executedData: found.executedData };
  });
  const ids = runIds(input, target.sessionId);
  const pastHistory = await deps.runtime.memory.load(flow.id, ids.sessionId);
  return {
    ids,
    execution: acceptedExecution(deps, { id: target.id, agentflowId: flow.id, sessionId: ids.sessionId }, target.executedData),
    pastHistory,
    resume: { executionId: target.id, executedData: target.executedData, humanInput: human },
  };
}
