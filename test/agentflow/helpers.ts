// Shared by the agentflow runtime tests: hand-built agentflows the way Flowise 3 saves them, ports
// that record checkpoints and stream frames, and the stand-in as the chat model.
import { httpStatus } from "../../src/errors";
import { runAgentflow } from "../../src/engine/agentflow";
import type {
  AgentflowGraph,
  AgentflowOutcome,
  AgentflowPorts,
  AgentflowRequest,
  ExecutedData,
  ExecutionState,
  FlowCall,
  FlowCallResult,
} from "../../src/engine/agentflow/types";
import type { ChatTurn, RunContext, Runtime } from "../../src/engine";
import { frame } from "../../src/stream/sse";
import { makeCtx, runtimeWith, standinUrl } from "../engine/helpers";

export { marker, requestsWith, standinUrl } from "../engine/helpers";

type Inputs = Record<string, unknown>;

export function node(id: string, inputs: Inputs = {}, extra: Record<string, unknown> = {}) {
  const name = id.replace(/_\d+$/, "");
  const label = (extra.label as string) ?? id;
  return {
    id,
    type: "agentFlow",
    position: { x: 0, y: 0 },
    ...extra,
    data: { id, name, label, category: "Agent Flows", inputs, outputs: {}, outputAnchors: [] },
  };
}

/** A plain edge, or a branch edge (`<id>-output-<i>`) when `branch` is given. */
export function edge(source: string, target: string, branch?: number) {
  const handle = branch === undefined ? `${source}-output-${source.replace(/_\d+$/, "")}` : `${source}-output-${branch}`;
  return { id: `${source}-${target}-${branch ?? ""}`, source, sourceHandle: handle, target, targetHandle: target, type: "agentFlow" };
}

export const graph = (nodes: unknown[], edges: unknown[]): AgentflowGraph => structuredClone({ nodes, edges }) as AgentflowGraph;

export const start = (inputs: Inputs = {}) => node("startAgentflow_0", { startInputType: "chatInput", ...inputs }, { label: "Start" });

/** The stand-in as an OpenAI-compatible chat model config. */
export const modelConfig = (over: Inputs = {}) => ({ modelName: "gpt-standin", basepath: `${standinUrl()}/v1`, streaming: true, ...over });

export const llm = (id: string, inputs: Inputs = {}, label?: string) =>
  node(
    id,
    { llmModel: "chatOpenAI", llmModelConfig: modelConfig(), llmMessages: [], llmEnableMemory: true, ...inputs },
    label ? { label } : {},
  );

export const agent = (id: string, inputs: Inputs = {}, label?: string) =>
  node(
    id,
    { agentModel: "chatOpenAI", agentModelConfig: modelConfig(), agentMessages: [], agentEnableMemory: true, ...inputs },
    label ? { label } : {},
  );

export const directReply = (id: string, message: string) => node(id, { directReplyMessage: message });

/** The stream as a client reads it: Flowise's frames, byte for byte. */
export interface Recorder {
  ports: AgentflowPorts;
  frames: Array<{ event: string; data: unknown }>;
  text(): string;
  checkpoints: Array<{ state: ExecutionState; data: ExecutedData[] }>;
  calls: Array<{ flowId: string; call: FlowCall }>;
  tokens(): string;
}

export interface PortOptions {
  ctx?: Partial<RunContext>;
  history?: ChatTurn[];
  runFlow?: (flowId: string, call: FlowCall) => Promise<FlowCallResult>;
  checkpoint?: (data: ExecutedData[], state: ExecutionState) => Promise<void>;
  now?: () => number;
  /** Keep only each checkpoint's state and length (long runs: copying every checkpoint is quadratic). */
  lightCheckpoints?: boolean;
}

export function recorder(options: PortOptions = {}): Recorder {
  const frames: Recorder["frames"] = [];
  const checkpoints: Recorder["checkpoints"] = [];
  const calls: Recorder["calls"] = [];
  const raw: string[] = [];
  const ctx = makeCtx("", { ...options.ctx });
  return {
    frames,
    checkpoints,
    calls,
    text: () => raw.join(""),
    tokens: () =>
      frames
        .filter((f) => f.event === "token")
        .map((f) => f.data)
        .join(""),
    ports: {
      ctx,
      pastChatHistory: async () => options.history ?? [],
      async checkpoint(data, state) {
        checkpoints.push({ state, data: options.lightCheckpoints ? new Array(data.length) : structuredClone(data) });
        await options.checkpoint?.(data, state);
      },
      events: {
        event(name, data) {
          raw.push(frame(name, data));
          frames.push({ event: name, data: structuredClone(data) });
        },
      },
      async runFlow(flowId, call) {
        calls.push({ flowId, call });
        if (!options.runFlow) throw new Error("no runFlow in this test");
        return options.runFlow(flowId, call);
      },
      now: options.now,
    },
  };
}

export function request(over: Partial<AgentflowRequest> = {}): AgentflowRequest {
  const chatId = over.chatId ?? crypto.randomUUID();
  return { chatflowId: over.chatflowId ?? crypto.randomUUID(), chatId, sessionId: chatId, streaming: false, vars: {}, ...over };
}

export async function run(
  g: AgentflowGraph,
  req: Partial<AgentflowRequest> = {},
  options: PortOptions = {},
): Promise<AgentflowOutcome & { rec: Recorder; errorStatus?: number }> {
  const rec = recorder(options);
  const outcome = await runAgentflow(g, request(req), rec.ports);
  // The status the HTTP layer answers for the outcome's code, as a caller would see it.
  return { ...outcome, rec, errorStatus: outcome.errorCode ? httpStatus(outcome.errorCode) : undefined };
}

/** The error a promise rejects with (or fails the test when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<{ status?: number; message: string }> {
  return p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e) => e,
  );
}

/** A node's output in the executed data (its latest entry). */
export const outputOf = (data: ExecutedData[], nodeId: string) =>
  [...data].reverse().find((e) => e.nodeId === nodeId)?.data.output as Record<string, any> | undefined;

/** Ports letting the HTTP node and the sandbox's fetch reach the stand-in on loopback. */
export const loopbackRuntime = (): Runtime => runtimeWith({ OUTBOUND_ALLOW: "127.0.0.1" });
