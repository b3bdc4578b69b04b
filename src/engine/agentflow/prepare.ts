// Where a run starts (AGENTFLOW.md §4.2, §7.2): a new run at the Start node, with the persisted
// state and the form of the session's previous execution when asked for; or a resume at the
// paused node of a stored execution, with that execution's data, state and form.
import { fail } from "../../errors";
import type { FlowMap } from "./graph";
import { agentflowNodes } from "./nodes/registry";
import type { FlowState } from "./state";
import type { AgentflowNode, AgentflowRequest, ExecutedData, HumanInput } from "./types";
import { bool, isObject } from "./util";

export interface StartPoint {
  startNodeId: string;
  state: FlowState;
  form: Record<string, unknown>;
  executedData: ExecutedData[];
  humanInput?: HumanInput;
}

/** Flowise may keep a form as `k: v` lines. */
function formOf(value: unknown): Record<string, unknown> {
  if (isObject(value)) return value;
  if (typeof value !== "string") return {};
  const form: Record<string, unknown> = {};
  for (const line of value.split("\n")) {
    const [key, rest] = line.split(/: (.*)/s);
    if (key?.trim() && rest?.trim()) form[key.trim()] = rest.trim();
  }
  return form;
}

const startForm = (data: ExecutedData[] | undefined) =>
  formOf(data?.find((e) => agentflowNodes.get(e.data?.name)?.start)?.data?.output?.form);

/** The state of the last entry that has one (an empty object counts). */
const lastState = (data: ExecutedData[]): FlowState => {
  for (let i = data.length - 1; i >= 0; i--) if (isObject(data[i].data?.state)) return { ...(data[i].data.state as FlowState) };
  return {};
};

export function startPoint(map: FlowMap, start: AgentflowNode, request: AgentflowRequest): StartPoint {
  const requestForm = isObject(request.form) && Object.keys(request.form).length ? request.form : undefined;
  const resume = request.resume;
  if (!resume) {
    const previous = request.previousExecution;
    const inputs = start.data.inputs ?? {};
    const state = bool(inputs.startPersistState) && previous?.length ? lastState(previous) : {};
    const form = requestForm ?? (inputs.startInputType === "formInput" ? startForm(previous) : {});
    return { startNodeId: start.id, state, form, executedData: [] };
  }

  let data = structuredClone(resume.executedData);
  // An ERROR right after the pause (a failed resume) is dropped: the resume is retried.
  if (data.length >= 2 && data.at(-1)!.status === "ERROR" && data.at(-2)!.status === "STOPPED") data = data.slice(0, -1);
  const humanInput = resume.humanInput;
  if (humanInput?.type !== "proceed" && humanInput?.type !== "reject")
    throw fail("INVALID_INPUT", 'humanInput.type must be "proceed" or "reject"');
  const stopped = [...data].reverse().find((e) => e.status === "STOPPED");
  const startNodeId = humanInput.startNodeId || stopped?.nodeId;
  if (!startNodeId) throw fail("INVALID_INPUT", `Execution ${resume.executionId} has no paused node to resume`);
  const latest = [...data].reverse().find((e) => e.nodeId === startNodeId);
  if (!latest) throw fail("INVALID_INPUT", `Node ${startNodeId} not found in execution ${resume.executionId}`);
  if (latest.status !== "STOPPED")
    throw fail("INVALID_INPUT", `Node ${startNodeId} of execution ${resume.executionId} is not waiting for input`);
  if (!map.nodes.has(startNodeId)) throw fail("INVALID_INPUT", `Node ${startNodeId} is no longer in this agentflow`);
  return {
    startNodeId,
    state: lastState(data),
    form: requestForm ?? startForm(data),
    executedData: data,
    humanInput: { ...humanInput, startNodeId },
  };
}

/**
 * What every node receives: the question (file text first), or the form as `k: v` lines, or — a
 * webhook flow passing its whole payload (Input Mode "payload") — the webhook as JSON.
 */
export function userInput(request: AgentflowRequest, form: Record<string, unknown>): string | undefined {
  if (request.question) return request.fileText ? `${request.fileText}\n\n${request.question}` : request.question;
  const entries = Object.entries(form);
  if (entries.length) return entries.map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join("\n");
  return request.webhook && !request.resume ? JSON.stringify(request.webhook) : undefined;
}
