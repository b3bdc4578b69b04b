// Where an agentflow run begins, however it begins — a new run (agentflow-new.ts), a resume run in
// the request (agentflow-resume.ts), a detached run's resume in its Workflow
// (agentflow-resume-detached.ts): its ids, the execution it writes through, and what the runtime
// reads before its first node. agentflow-start.ts builds the run on it.
import type { ChatTurn } from "../../engine";
import type { AgentflowRequest, ExecutedData } from "../../engine/agentflow/types";
import type { ExecutionCheckpointer } from "../executions";

export interface Beginning {
  ids: { chatId: string; sessionId: string };
  /** The run's execution: new, accepted when a detached run was, or claimed for a resume. */
  execution: ExecutionCheckpointer;
  /** Stored messages of (agentflow, session), oldest first. */
  pastHistory: ChatTurn[];
  /** A resume: the paused execution's data and the human input answering it. */
  resume?: AgentflowRequest["resume"];
  /** A new run: the session's previous execution's data (the Start node's persisted state). */
  previousExecution?: ExecutedData[];
  /** A request resuming a detached run in its own isolate (its Workflow is told when it is done). */
  detachedResume?: boolean;
}
