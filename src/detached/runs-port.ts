// The detached runs port (services/runs/detached-runs.ts) over the RUNS Workflow binding. Checked
// against the local engine (wrangler 4.156.2): an instance whose step was in flight when the process
// died is never restarted by itself, `status()` does not wake it, `resume()` is a no-op on it (and
// throws in production), `restart()` runs finished steps again — but an event wakes it, of any
// type, and then only the interrupted step runs again. So a wake is an event the Workflow never
// waits on; production, which restarts an interrupted step itself, takes it as a harmless no-op.
import type { DetachedRuns, InstanceStatus } from "../services/detached-runs";

/** The event type that wakes an instance: RunWorkflow never waits for it. */
export const WAKE_EVENT = "wake";

const STATUS: Record<string, InstanceStatus> = { errored: "errored", terminated: "terminated", complete: "complete" };

/** No such instance (the local engine and production both say `instance.not_found`). */
const isNotFound = (err: unknown) => /not[_ ]found/i.test(String((err as Error)?.message ?? err));

export function workflowRuns(binding: Workflow | undefined): DetachedRuns | undefined {
  if (!binding) return undefined;
  return {
    async inspect(executionId) {
      let instance: WorkflowInstance;
      try {
        instance = await binding.get(executionId);
      } catch (err) {
        if (isNotFound(err)) return { status: "gone" };
        throw err;
      }
      const seen = await instance.status();
      const error = seen.error ? String((seen.error as { message?: string }).message ?? seen.error) : undefined;
      return { status: STATUS[seen.status] ?? "live", ...(error ? { error } : {}) };
    },
    async wake(executionId) {
      const instance = await binding.get(executionId);
      await instance.sendEvent({ type: WAKE_EVENT, payload: { at: new Date().toISOString() } });
    },
  };
}
