// Small agentflows built by hand the way Flowise 3 saves them (AGENTFLOW.md §1), their chat model
// pointed at the OpenAI-compatible stand-in; and readers for what the API answers.
import { inject } from "vitest";
import { json } from "../helpers";

export const standinUrl = () => inject("standinUrl");

type Inputs = Record<string, unknown>;

export function afNode(id: string, label: string, inputs: Inputs = {}, extra: Record<string, unknown> = {}) {
  const name = id.replace(/_\d+$/, "");
  return {
    id,
    type: "agentFlow",
    position: { x: 0, y: 0 },
    ...extra,
    data: { id, name, label, category: "Agent Flows", version: 1, inputs, outputs: {}, outputAnchors: [] },
  };
}

/** A plain edge (`<id>-output-<name>`), or a branch edge (`<id>-output-<index>`) when `branch` is given. */
export function afEdge(source: string, target: string, branch?: number) {
  const handle = branch === undefined ? `${source}-output-${source.replace(/_\d+$/, "")}` : `${source}-output-${branch}`;
  return {
    id: `${source}-${target}-${branch ?? ""}`,
    source,
    sourceHandle: handle,
    target,
    targetHandle: target,
    type: "agentFlow",
    data: {},
  };
}

export const start = (inputs: Inputs = {}) => afNode("startAgentflow_0", "Start", { startInputType: "chatInput", ...inputs });

/** The stand-in as an OpenAI chat model config (`llmModelConfig`). */
export const modelConfig = (credential: string, over: Inputs = {}) => ({
  modelName: "gpt-standin",
  basepath: `${standinUrl()}/v1`,
  streaming: true,
  FLOWISE_CREDENTIAL_ID: credential,
  ...over,
});

export const llm = (id: string, credential: string, inputs: Inputs = {}) =>
  afNode(id, `LLM ${id.slice(-1)}`, {
    llmModel: "chatOpenAI",
    llmModelConfig: modelConfig(credential),
    llmMessages: [],
    llmEnableMemory: true,
    ...inputs,
  });

export const humanInput = (id = "humanInputAgentflow_0", description = "Do you want to proceed?") =>
  afNode(id, "Human Input 0", { humanInputDescriptionType: "fixed", humanInputDescription: description, humanInputEnableFeedback: true });

export const directReply = (id: string, message: string) => afNode(id, `Reply ${id.slice(-1)}`, { directReplyMessage: message });

export const flowData = (nodes: unknown[], edges: unknown[]) => JSON.stringify({ nodes, edges });

export async function openAICredential(): Promise<string> {
  return (
    await json("POST", "/credentials", {
      body: { name: "standin", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-test" } },
    })
  ).id;
}

export async function saveAgentflowOf(
  nodes: unknown[],
  edges: unknown[],
  extra: Record<string, unknown> = {},
): Promise<{ id: string; warning?: string }> {
  return json("POST", "/chatflows", { body: { name: "agentflow", type: "AGENTFLOW", flowData: flowData(nodes, edges), ...extra } });
}

/** Start → Human Input → proceed: Direct Reply "approved" / reject: Direct Reply "rejected". */
export function approvalFlow(description = "Do you want to proceed?") {
  return {
    nodes: [
      start(),
      humanInput("humanInputAgentflow_0", description),
      directReply("directReplyAgentflow_0", "approved"),
      directReply("directReplyAgentflow_1", "rejected"),
    ],
    edges: [
      afEdge("startAgentflow_0", "humanInputAgentflow_0"),
      afEdge("humanInputAgentflow_0", "directReplyAgentflow_0", 0),
      afEdge("humanInputAgentflow_0", "directReplyAgentflow_1", 1),
    ],
  };
}

export interface Frame {
  event: string;
  data: any;
}

/** Reads an event stream to the end: the raw text and the parsed frames (heartbeat comments skipped). */
export async function readStream(res: Response): Promise<{ raw: string; frames: Frame[] }> {
  const raw = await res.text();
  const frames = raw
    .split("\n\n")
    .filter((b) => b.startsWith("message:\ndata:"))
    .map((b) => JSON.parse(b.slice("message:\ndata:".length)) as Frame);
  return { raw, frames };
}

export const eventsOf = (frames: Frame[]) => frames.map((f) => f.event);

export const messagesOf = (flowId: string) => json<any[]>("GET", `/chatmessage/${flowId}`);
export const executionsOf = async (flowId: string) => (await json("GET", `/executions?agentflowId=${flowId}`)).data as any[];
