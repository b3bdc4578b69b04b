// The Workflows engine as the services see a detached run's instance: a port, implemented over the
// RUNS binding in src/detached/runs-port.ts and handed in by whoever builds the services (the
// request's init, the Workflow, the Cron Trigger). Starting and resuming will join it (issue 29);
// for now it holds what waking a stalled run needs (services/detached-wake.ts).

/**
 * How the engine sees an instance: `live` (queued, running, waiting: it may still go on), `errored`,
 * `terminated`, `complete`, or `gone` (no such instance).
 */
export type InstanceStatus = "live" | "errored" | "terminated" | "complete" | "gone";

export interface DetachedRuns {
  /** The instance of execution `executionId` as the engine reports it; `error` says why it failed. */
  inspect(executionId: string): Promise<{ status: InstanceStatus; error?: string }>;
  /**
   * Wakes the instance: an event of a type the Workflow never waits on, which every engine accepts.
   * An instance cut off by a restart runs again (finished steps answered from their stored results,
   * the interrupted one from its start); a running one is not disturbed.
   */
  wake(executionId: string): Promise<void>;
}
