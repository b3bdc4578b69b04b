// Every way a run is started, and what each may do: the one table the door reads. A trigger sets
// the stored messages' chatType, who proves the right to run (the door checks the caller, or the
// adapter did before calling), the flow's origin and rate limits, whether the run may (or must)
// resume a paused agentflow, and how its answer may leave.
import type { ChatType } from "../../db/enums";
import { ApiError } from "../../errors";

export type TriggerId = "prediction" | "internal" | "resume" | "execute-flow" | "async" | "mcp" | "webhook" | "schedule" | "openai";

/** How a run's answer leaves: the JSON answer, Flowise's event stream, or (issue 20) detached from any request. */
export type DeliveryKind = "json" | "sse" | "detached";

export interface TriggerRule {
  /** chat_message.chatType of the run's messages. */
  chatType: ChatType;
  /**
   * `caller`: the door checks the caller the adapter describes (its bearer against the flow's key
   * binding, isPublic and the key's chatflow scope). `adapter`: the adapter proved the right to run
   * before calling (Execute Flow: the flow's owner wired the call; an MCP token, a webhook
   * secret, the scheduler).
   */
  access: "caller" | "adapter";
  /** chatbotConfig.allowedOrigins against the caller's Origin. */
  checkOrigin: boolean;
  /** apiConfig.rateLimit per client address. */
  rateLimit: boolean;
  /**
   * `may`: a humanInput (or a V1 approval answer) resumes a paused agentflow, named by
   * humanInput.executionId or found by session (Flowise's rule). `must`: the request resumes the
   * execution humanInput.executionId names. `never`: humanInput is refused.
   */
  resume: "may" | "must" | "never";
  deliveries: readonly DeliveryKind[];
}

/** A trigger defined outside this table (a test's adapter, an experiment): its rule and a name for errors. */
export interface TriggerDefinition extends TriggerRule {
  id: string;
}

const BY_CALLER = { access: "caller", checkOrigin: true, rateLimit: true } as const;

export const TRIGGERS: Record<TriggerId, TriggerRule> = {
  // POST /prediction/{id}.
  prediction: { chatType: "EXTERNAL", ...BY_CALLER, resume: "may", deliveries: ["json", "sse"] },
  // POST /internal-prediction/{id}: the studio's test chat (and its Executions page's human input). The
  // adapter admits only the studio's own origin and someone: a signed-in person (Caller.principal) or
  // a bearer. Neither the widget's allowed origins nor its rate limit apply (nor do they on Flowise's).
  internal: { chatType: "INTERNAL", access: "caller", checkOrigin: false, rateLimit: false, resume: "may", deliveries: ["json", "sse"] },
  // A paused agentflow's execution, continued by its id (adapters that hold the id: detached runs, OpenAI's metadata.executionId).
  resume: { chatType: "EXTERNAL", ...BY_CALLER, resume: "must", deliveries: ["json", "sse"] },
  // The Execute Flow node (agentflows, V1's seqExecuteFlow), in-process through the runFlow port; stored as the callee's own prediction.
  "execute-flow": { chatType: "EXTERNAL", access: "adapter", checkOrigin: false, rateLimit: false, resume: "never", deliveries: ["json"] },
  // POST /prediction/{id} with async: true: accepted (202) and detached on Cloudflare Workflows.
  async: { chatType: "EXTERNAL", ...BY_CALLER, resume: "may", deliveries: ["detached"] },
  // POST /mcp/{id} and POST /mcp tools/call: the route checked the MCP token (or the API key's
  // reach), the Origin and the flow's rate limit; each call is a new chat, answered as JSON.
  mcp: { chatType: "MCP", access: "adapter", checkOrigin: false, rateLimit: false, resume: "never", deliveries: ["json"] },
  // /webhook/{id} (any method): the route checked the flow's Start node (method, content type,
  // shape), its secret and its rate limit; Flowise's response modes are the three deliveries
  // (sync: json, stream: sse, async: detached with the Start node's callback); a humanInput in
  // the body resumes the flow's paused execution.
  webhook: {
    chatType: "WEBHOOK",
    access: "adapter",
    checkOrigin: false,
    rateLimit: false,
    resume: "may",
    deliveries: ["json", "sse", "detached"],
  },
  // The Worker's Cron Trigger (schedule/cron-trigger.ts, services/schedules/tick.ts): the deployment itself starts each
  // claimed slot of a schedule as a detached run, a new chat each time.
  schedule: { chatType: "SCHEDULED", access: "adapter", checkOrigin: false, rateLimit: false, resume: "never", deliveries: ["detached"] },
  // /openai/chat/completions and /openai/responses: the route resolved the model and checked the
  // caller, its origin and the rate limit (routes/runnable.ts), and hands its look-ups in; an
  // agentflow's pause is resumed by metadata.executionId. Streaming goes through the run's frames.
  openai: { chatType: "OPENAI", access: "adapter", checkOrigin: false, rateLimit: false, resume: "may", deliveries: ["json"] },
};

/** The rule of a trigger named in the table, or the definition given. */
export function triggerRule(trigger: TriggerId | TriggerDefinition): TriggerDefinition {
  if (typeof trigger !== "string") return trigger;
  const rule = TRIGGERS[trigger];
  if (!rule) throw new ApiError(400, `Unknown trigger ${trigger}`);
  return { id: trigger, ...rule };
}

/**
 * The run a detached request started, as its Workflow runs it: the caller was checked when the run
 * was accepted, its frames go to the execution's event log, its answer to the execution's row.
 */
export const DETACHED_RUN: TriggerDefinition = {
  id: "async",
  chatType: "EXTERNAL",
  access: "adapter",
  checkOrigin: false,
  rateLimit: false,
  resume: "may",
  deliveries: ["json"],
};
