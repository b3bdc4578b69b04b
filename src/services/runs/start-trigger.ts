// Flowise 3.1's triggered agentflows: a Start node set to `webhookTrigger` runs only when its
// webhook fires, one set to `scheduleInput` only when its schedule does (chatType WEBHOOK and
// SCHEDULED; a detached run carries its trigger's chatType). Any other way in — POST /prediction,
// MCP, the OpenAI API, Execute Flow — is a 400 that says how the flow is started.
import type { PreparedFlow } from "../../engine";
import { badRequest } from "../../errors";
import type { TriggerRule } from "./triggers";

/** The Start node's inputs of an Agentflow V2 graph, if it has one. */
export function startInputsOf(
  nodes: ReadonlyArray<{ data?: { name?: string; inputs?: Record<string, unknown> } }>,
): Record<string, unknown> | undefined {
  return nodes.find((n) => n.data?.name === "startAgentflow")?.data?.inputs;
}

export function assertStartTrigger(rule: Pick<TriggerRule, "chatType">, prepared: PreparedFlow, flowId: string): void {
  if (prepared.kind !== "agentflow") return;
  const inputs = startInputsOf(prepared.graph.nodes);
  const type = inputs?.startInputType;
  if (type === "webhookTrigger" && rule.chatType !== "WEBHOOK") {
    const method = typeof inputs?.webhookMethod === "string" && inputs.webhookMethod ? inputs.webhookMethod.toUpperCase() : "POST";
    throw badRequest(
      `This flow is configured as a Webhook Trigger. Call ${method} /api/v1/webhook/${flowId} instead of the prediction API.`,
    );
  }
  if (type === "scheduleInput" && rule.chatType !== "SCHEDULED") {
    throw badRequest(
      "This flow is configured as a Scheduled Trigger. It is fired by the scheduler and cannot be invoked via the " +
        "API. Change the Start node Input Type to Chat or Form to call it from the prediction API.",
    );
  }
}
