// The Workflows engine as the services see a detached run's instance: a port, implemented over the
// RUNS binding in src/detached/runs-port.ts and handed in by whoever builds the services (the
// request's init, the Workflow, the Cron Trigger; absent without the binding). The run door starts
// and resumes runs through it (services/runs/detach.ts), tells a run its pause was answered in a
// request (services/runs/agentflow.ts), and the executions' wake inspects and wakes stalled ones
// (services/executions/wake.ts). The protocol between the door and the Workflow (its params, the
// resume event) is defined here, beside the port: src/detached/ implements it, the services use it.
import type { ChatType } from "../db/enums";
import type { PredictionInput } from "../schemas/prediction";

/**
 * How the engine sees an instance: `live` (queued, running, waiting: it may still go on), `errored`,
 * `terminated`, `complete`, or `gone` (no such instance).
 */
export type InstanceStatus = "live" | "errored" | "terminated" | "complete" | "gone";

export interface DetachedRuns {
  /** Creates the instance that runs execution `params.executionId` (its id the execution's). */
  start(params: DetachedParams): Promise<void>;
  /** Sends a paused run the resume it waits for (its input, chatId fixed); false when its instance is gone. */
  resume(executionId: string, input: PredictionInput): Promise<boolean>;
  /** A paused run was resumed by a request in its own isolate: its instance, waiting, looks at the row again. */
  notify(executionId: string): Promise<void>;
  /** The instance of execution `executionId` as the engine reports it; `error` says why it failed. */
  inspect(executionId: string): Promise<{ status: InstanceStatus; error?: string }>;
  /**
   * Wakes the instance: an event of a type the Workflow never waits on, which every engine accepts.
   * An instance cut off by a restart runs again (finished steps answered from their stored results,
   * the interrupted one from its start); a running one is not disturbed.
   */
  wake(executionId: string): Promise<void>;
}

/** Flowise's webhook callback (dist/utils/callbackDispatcher.js): where, and the HMAC key of X-Flowise-Signature. */
export interface FlowiseCallback {
  url: string;
  secret?: string;
}

/** What the Workflow instance is created with (its params: JSON, kept by the platform). */
export interface DetachedParams {
  executionId: string;
  flowId: string;
  /** The request's fields, chatId fixed (a replay makes the same ids); no uploads (see uploadsKey). */
  input: PredictionInput;
  /** Where the request's files wait in R2 (a Workflow's params are small). */
  uploadsKey?: string;
  callbackUrl?: string;
  /** The trigger's chatType for the stored messages (EXTERNAL when absent: POST /prediction's async). */
  chatType?: ChatType;
  /** Where the webhook that fired the run waits in R2 (`$webhook.*`; up to the body limit, too large for params). */
  webhookKey?: string;
  /** An async webhook's callback: Flowise's body, signed with the Start node's callbackSecret. */
  flowiseCallback?: FlowiseCallback;
  /** A scheduled run's trigger-log row, settled when the run ends. */
  triggerLogId?: string;
}

/** The event a paused detached run waits for: a resume's input, or `handled` (a request resumed it in its own isolate). */
export interface ResumeEvent {
  input?: PredictionInput;
  handled?: boolean;
}
export const RESUME_EVENT = "resume";

/** The event type that wakes an instance: the Workflow never waits for it. */
export const WAKE_EVENT = "wake";
