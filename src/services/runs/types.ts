// The door's input and output (index.ts runFlow), HTTP-free: an adapter turns its request into a
// RunRequest and the Delivered answer (deliver.ts) back into its response.
import type { BatchItem } from "drizzle-orm/batch";
import type { Principal } from "../../env";
import type { StreamSink } from "../../engine";
import type { AgentflowEvents, WebhookPayload } from "../../engine/agentflow/types";
import type { Deps } from "../deps";
import type { FlowiseCallback } from "../detached-runs";
import type { RunLookups } from "./lookups";
import type { RunSteps } from "./steps";
import type { PredictionInput } from "../../schemas/prediction";
import type { DeliveryKind, TriggerDefinition, TriggerId } from "./triggers";
import type { UploadInput } from "./uploads";

/** Who calls, as plain data from the adapter's request: what the door checks when the trigger's access is `caller`. */
export interface Caller {
  /** The Authorization header as sent (undefined: none). */
  authorization?: string;
  /** The Origin header (a browser page), checked against chatbotConfig.allowedOrigins. */
  origin?: string;
  /** The client's address for the flow's rate limit (rate-limit/check.ts clientIpOf). */
  clientIp: string;
  /**
   * Who the adapter found the caller to be by something the door cannot read (the studio's session
   * cookie): used instead of `authorization`. Only an adapter that checked it sets it.
   */
  principal?: Principal;
}

export interface RunRequest {
  /** Who starts the run (triggers.ts): its chatType, access and deliveries. */
  trigger: TriggerId | TriggerDefinition;
  /** A chatflow, agentflow or assistant id. */
  flowId: string;
  /** The prediction's fields (question, chatId, overrideConfig, history, form, humanInput, …); `delivery` replaces `streaming`. */
  input: PredictionInput;
  /** Files, decoded (data: URIs and multipart files alike). */
  uploads?: UploadInput[];
  /** Required when the trigger's access is `caller`. */
  caller?: Caller;
  delivery: DeliveryKind;
  /** Aborts the run, with its reason (a client that went away, the calling flow's own stop). */
  signal?: AbortSignal;
  /** Execute Flow: the flows that led here, outermost first (the callee refuses a cycle). */
  callStack?: string[];
  /**
   * The look-ups an adapter already sent (services/runs/lookups.ts `lookUpRun`) because it needed the
   * flow before the run (the OpenAI API resolves a model name and checks the caller itself): the run
   * uses them, so it still makes one D1 round trip before the model.
   */
  lookups?: RunLookups;
  /** A detached run (issue 20): the execution row created when the run was accepted, which it fills. */
  executionId?: string;
  /** A detached run: each agentflow node, and the record, as a durable step; a chatflow as one step. */
  steps?: RunSteps;
  /** Where a JSON run's frames go too as they happen: a detached run's event log, a listened webhook's copy. */
  frames?: RunFrames;
  /** The webhook that fired the run: `$webhook.*` in the flow (trigger `webhook`). */
  webhook?: WebhookPayload;
  /**
   * A detached run's callback named by its trigger rather than its input: an async webhook's Start
   * node (`callbackUrl`, `callbackSecret`), called back in Flowise's shape and signature.
   */
  flowiseCallback?: FlowiseCallback;
  /** A scheduled run: its slot's trigger-log row, settled when the run ends. */
  triggerLogId?: string;
  /**
   * Rows the adapter keeps with the run's messages, made from the run's answer (its message id
   * known): written in the record's own batch, so they land with the messages or not at all, in the
   * same round trip. The Responses API's stored response.
   */
  recordAlso?: RecordAlso;
}

/** What `RunRequest.recordAlso` makes: statements for the record's batch (Drizzle queries: batchable, and SQL with parameters). */
export type RecordAlso = (answer: RecordedAnswer) => Promise<RecordStatement[]>;

/** What a `recordAlso` reads of the run's JSON answer (answers.ts makes it). */
export interface RecordedAnswer {
  text: string;
  json?: unknown;
  chatId: string;
  sessionId: string;
  chatMessageId: string;
  /** An agentflow's run. */
  executionId?: string;
  /** A paused agentflow's human input. */
  action?: unknown;
}
export type RecordStatement = BatchItem<"sqlite"> & { toSQL(): { sql: string; params: unknown[] } };

/** Where a detached run's frames go: tokens and events, and where a held-back frame was made (AgentflowEvents.hold). */
export type RunFrames = StreamSink & Pick<AgentflowEvents, "hold">;

export type { FlowiseCallback };

/** What a run reaches outside itself: the services container's part (an adapter hands the container whole). */
export type RunDeps = Deps<"db" | "env" | "runtime" | "waitUntil" | "requestId" | "detached"> &
  Partial<Deps<"runStarted">> & {
    /** The run's time limit; absent: a request's, RUN_TIMEOUT_MS. A detached run's Workflow passes ASYNC_RUN_TIMEOUT_MS. */
    timeLimitMs?: number;
  };
