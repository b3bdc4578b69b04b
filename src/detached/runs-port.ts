// The detached runs port (services/detached-runs.ts) over the RUNS Workflow binding: the only code
// that touches it. Checked against the local engine (wrangler 4.156.2): an instance whose step was
// in flight when the process died is never restarted by itself, `status()` does not wake it,
// `resume()` is a no-op on it (and throws in production), `restart()` runs finished steps again —
// but an event wakes it, of any type, and then only the interrupted step runs again. So a wake is
// an event the Workflow never waits on; production, which restarts an interrupted step itself,
// takes it as a harmless no-op.
import {
  type DetachedParams,
  type DetachedRuns,
  type InstanceStatus,
  RESUME_EVENT,
  type ResumeEvent,
  WAKE_EVENT,
} from "../services/detached-runs";

const STATUS: Record<string, InstanceStatus> = { errored: "errored", terminated: "terminated", complete: "complete" };

/** No such instance (the local engine and production both say `instance.not_found`). */
const isNotFound = (err: unknown) => /not[_ ]found/i.test(String((err as Error)?.message ?? err));

/** The port over `env.RUNS`; undefined where the Workflow is not bound (then `async: true` is a 501). */
export function workflowRuns(env: { RUNS?: Workflow }): DetachedRuns | undefined {
  const binding = env.RUNS;
  if (!binding) return undefined;
  const send = async (executionId: string, type: string, payload: unknown) => {
    const instance = await binding.get(executionId);
    await instance.sendEvent({ type, payload });
  };
  return {
    async start(params: DetachedParams) {
      await binding.create({ id: params.executionId, params });
    },
    async resume(executionId, input) {
      let instance: WorkflowInstance;
      try {
        instance = await binding.get(executionId);
      } catch {
        return false;
      }
      await instance.sendEvent({ type: RESUME_EVENT, payload: { input } satisfies ResumeEvent });
      return true;
    },
    async notify(executionId) {
      await send(executionId, RESUME_EVENT, { handled: true } satisfies ResumeEvent);
    },
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
      await send(executionId, WAKE_EVENT, { at: new Date().toISOString() });
    },
  };
}
