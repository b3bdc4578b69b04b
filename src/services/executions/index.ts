// Executions: the one owner of the `execution` table. Every other file reaches a run's row through
// this door, whatever it does with it:
//   create      a synchronous run's row at its first checkpoint (checkpointer.ts `newExecution`), a
//               detached run's when it is accepted (detached.ts `acceptDetached`)
//   checkpoint  the engine's checkpoint port writes through the run's ExecutionCheckpointer: a write
//               per node, the lease renewed, the final state in the record's batch
//   claim       the pause a resume takes (resume.ts: found, claimed by one conditional UPDATE),
//   release     given back when the resume is refused before its first node
//   settle      a detached part's outcome, a Workflow that could not start, a dead instance's row
//   expire      stale synchronous rows TIMEOUT (lease.ts), an unanswered detached pause TIMEOUT
//   wake        a stalled detached run woken through the detached runs port (wake.ts)
//   read        the resume target, the session's previous data (previous.ts), the API's reads
//               (api.ts) and deletes (delete.ts)
// Services-level: it imports no other service folder (the run door imports it, not the other way).
export type { ExecutionDeps, ExecutionIdentity, ExecutionRow } from "./types";
export { executedDataOf } from "./types";
export { ExecutionCheckpointer, MAX_EXECUTION_DATA_BYTES, acceptedExecution, newExecution } from "./checkpointer";
export { type ResumeTarget, claimDetachedResume, claimForResume, claimedResumeTarget, findResumeTarget, resumePoint } from "./resume";
export { PREVIOUS_EXECUTION_SQL, previousExecutionData } from "./previous";
export {
  type DetachedOutcome,
  acceptDetached,
  detachedState,
  expireDetachedPause,
  failDetachedStart,
  markProgress,
  resultStatement,
  settleDetached,
} from "./detached";
export { SWEEP_LIMIT, type SweepReport, WAKE_EVERY_MS, type WakeDeps, type WakeOutcome, isDue, sweepDetached, wakeExecution } from "./wake";
export {
  agentflowOf,
  executionEvents,
  executionsByIds,
  getExecution,
  getPublicExecution,
  listExecutions,
  presentExecution,
  updateExecution,
} from "./api";
export { type ExecutionDeleteDeps, deleteExecution, deleteExecutions, flowExecutionsDeletion } from "./delete";
