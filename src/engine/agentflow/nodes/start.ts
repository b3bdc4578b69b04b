// Start: the first node. Chat input (the question) or form input (the request's `form`, else the
// form of the session's previous execution); a webhook trigger (the webhook's payload as its
// output, for `$webhook.*`; the question the webhook adapter made of it) or a schedule (its
// default text, form or nothing, which the scheduler sends as the request); the initial flow
// state (`startState` rows, or an object), overlaid with the previous execution's state when
// Persist State is on; Ephemeral Memory makes the run ignore the stored conversation.
import { fail } from "../../../errors";
import type { AgentflowNodeDef } from "../node-types";
import { bool, isObject } from "../util";
import { ownerOf } from "./common";

function declaredState(raw: unknown, owner: string): Record<string, unknown> {
  let value = raw;
  if (typeof value === "string") {
    if (!value.trim()) return {};
    try {
      value = JSON.parse(value);
    } catch {
      throw fail("INVALID_FLOW", `${owner}: its flow state (startState) is not valid JSON`);
    }
  }
  if (isObject(value)) return { ...value }; // an object is accepted too (Flowise crashes on it, #4686)
  if (!Array.isArray(value)) return {};
  const state: Record<string, unknown> = {};
  for (const row of value) if (isObject(row) && typeof row.key === "string" && row.key) state[row.key] = row.value ?? "";
  return state;
}

export const startNode: AgentflowNodeDef = {
  name: "startAgentflow",
  variableParams: [],
  start: true,
  topLevelOnly: true,
  async run({ node, inputs, input, rt }) {
    const owner = ownerOf(node);
    const type = typeof inputs.startInputType === "string" && inputs.startInputType ? inputs.startInputType : "chatInput";
    const state = declaredState(inputs.startState, owner);
    const persist = bool(inputs.startPersistState);
    if (persist) Object.assign(state, rt.state);

    const inputData: Record<string, unknown> = {};
    const outputData: Record<string, unknown> = {};
    if (type === "formInput") {
      inputData.form = { title: inputs.formTitle, description: inputs.formDescription, inputs: inputs.formInputTypes };
      outputData.form = rt.form;
    } else if (type === "webhookTrigger") {
      // Kept in the execution, so a resume's `$webhook.*` still reads the request that started it.
      outputData.webhook = rt.request.webhook ?? {};
      if (inputs.webhookInputMode !== "payload") {
        inputData.question = input ?? " ";
        outputData.question = input ?? " ";
      }
    } else if (type === "scheduleInput" && inputs.scheduleInputMode === "form") {
      inputData.form = { inputs: inputs.scheduleFormInputTypes };
      outputData.form = rt.form;
    } else if (type === "scheduleInput") {
      const question =
        inputs.scheduleInputMode === "none"
          ? " "
          : input || (typeof inputs.scheduleDefaultInput === "string" ? inputs.scheduleDefaultInput : "");
      inputData.question = question;
      outputData.question = question;
    } else if (input !== undefined) {
      inputData.question = input;
      outputData.question = input;
    }
    if (bool(inputs.startEphemeralMemory)) outputData.ephemeralMemory = true;
    if (persist) outputData.persistState = true;
    return { id: node.id, name: node.data.name, input: inputData, output: outputData, state };
  },
};
