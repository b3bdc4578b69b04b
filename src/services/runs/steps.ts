// A detached run's durable steps, as the door sees them (the Workflow adapter, src/detached/, gives
// Cloudflare Workflows' `step.do` behind it). HTTP-free and platform-free: the door only knows that
// a step's work runs once, that a replay answers its stored result, and that an interrupted step's
// work may run again from its start (so what it writes must be keyed or conditional).
export interface RunSteps {
  /** Runs `work` as the step `name` (its result JSON); a replayed run answers the stored result. */
  do<T>(name: string, work: () => Promise<T>): Promise<T>;
  /** False while a restarted run replays steps that already finished; true once a step runs anew. */
  readonly live: boolean;
  /** An id a replay makes again (the same execution, part and name give the same id): what a re-run write is keyed by. */
  id(name: string): Promise<string>;
}
