// The human input a request answers a paused agentflow with: Flowise V2's `humanInput` body (checked
// here: 400 naming what is wrong), or V1's approval given as the question (the button's label).
import { z } from "@hono/zod-openapi";
import { badRequest } from "../../errors";
import type { ExecutedData, HumanInput } from "../../engine/agentflow/types";
import { uuid } from "../../schemas/common";
import type { PredictionInput } from "../../schemas/prediction";

const HumanInputBody = z.object({
  type: z.enum(["proceed", "reject"]),
  startNodeId: z.string().min(1).max(1000).optional(),
  feedback: z.string().max(100_000).optional(),
  executionId: uuid().optional(),
});

/** A request's answer to a pause, and the execution it names (if it does). */
export type NamedHumanInput = HumanInput & { executionId?: string };

/** Flowise V1's answer to an approval: the question is the approve or reject button's label, with the action shown. */
function v1Answer(input: PredictionInput): HumanInput | undefined {
  const mapping = input.action?.mapping;
  if (!mapping || input.question === undefined) return undefined;
  if (input.question === mapping.approve) return { type: "proceed" };
  if (input.question === mapping.reject) return { type: "reject" };
  return undefined;
}

/** The request's human input (undefined: it starts a new run), for a flow of `type`. */
export function humanInputOf(input: PredictionInput, type: string | null): NamedHumanInput | undefined {
  if (input.humanInput === undefined) return type === "MULTIAGENT" ? v1Answer(input) : undefined;
  const parsed = HumanInputBody.safeParse(input.humanInput);
  if (!parsed.success) {
    throw badRequest(
      `humanInput must be {type: "proceed"|"reject", startNodeId?, feedback?, ` +
        `executionId?}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "humanInput"}: ${i.message}`).join("; ")}`,
    );
  }
  return parsed.data;
}

/** The human input's startNodeId must be a node of the execution it resumes. */
export function checkStartNode(human: HumanInput, executionId: string, executedData: ExecutedData[]): void {
  if (human.startNodeId && !executedData.some((e) => e.nodeId === human.startNodeId)) {
    throw badRequest(`humanInput.startNodeId ${human.startNodeId} is not a node of execution ${executionId}`);
  }
}
