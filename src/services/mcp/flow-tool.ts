// How a flow looks as an MCP tool (Flowise 3.1.4's dist/services/mcp-endpoint): its name, its
// description, and its input — `question`, or `form` for an agentflow whose Start node takes a form
// (one property per form input, as the Start node declares them).
import { z } from "zod";

export interface FlowToolSource {
  id: string;
  name: string;
  type: string;
  flowData: string;
}

export interface FlowToolConfig {
  toolName: string;
  description: string;
}

export type FlowInputKind = "question" | "form";

export interface FlowTool {
  name: string;
  description: string;
  input: FlowInputKind;
  /** The tool's arguments (a zod shape; the MCP SDK turns it into the JSON Schema clients see). */
  shape: z.ZodRawShape;
  flowId: string;
}

export const MAX_TOOL_NAME = 64;

/** `toolName`, else the flow's name lower-cased with runs of other characters as `_` (Flowise's rule). */
export function flowToolName(config: FlowToolConfig, flow: Pick<FlowToolSource, "name">): string {
  if (config.toolName) return config.toolName;
  return (
    flow.name
      .toLowerCase()
      .replace(/[^a-z0-9_-]/g, "_")
      .replace(/_+/g, "_")
      .replace(/^_|_$/g, "")
      .substring(0, MAX_TOOL_NAME) || "chatflow_tool"
  );
}

export const flowToolDescription = (config: FlowToolConfig, flow: Pick<FlowToolSource, "name">): string =>
  config.description || `Execute the "${flow.name}" flow`;

interface FormInput {
  type?: unknown;
  label?: unknown;
  name?: unknown;
  addOptions?: unknown;
}

/** The Start node's form inputs when the agentflow starts with a form; undefined otherwise. */
function formInputsOf(flow: FlowToolSource): FormInput[] | undefined {
  if (flow.type !== "AGENTFLOW") return undefined;
  let graph: { nodes?: Array<{ data?: { name?: string; inputs?: Record<string, unknown> } }> };
  try {
    graph = JSON.parse(flow.flowData);
  } catch {
    return undefined;
  }
  const start = graph?.nodes?.find((n) => n?.data?.name === "startAgentflow");
  const inputs = start?.data?.inputs;
  if (inputs?.startInputType !== "formInput") return undefined;
  return Array.isArray(inputs.formInputTypes) ? (inputs.formInputTypes as FormInput[]) : [];
}

function formField(input: FormInput): z.ZodType | undefined {
  const label = typeof input.label === "string" && input.label ? input.label : String(input.name);
  switch (input.type) {
    case "number":
      return z.number().describe(label);
    case "boolean":
      return z.boolean().describe(label);
    case "options": {
      const options = (Array.isArray(input.addOptions) ? input.addOptions : [])
        .map((o) => (o && typeof o === "object" ? (o as { option?: unknown }).option : undefined))
        .filter((o): o is string => typeof o === "string" && o.length > 0);
      return options.length ? z.enum(options as [string, ...string[]]).describe(label) : undefined;
    }
    default:
      // string, and types Flowise refuses (it fails the whole server): text is what a form sends.
      return z.string().describe(label);
  }
}

/** The tool's arguments: `{question}` (required), or `{form: {…}}` with the Start node's form inputs. */
export function flowToolInput(flow: FlowToolSource): { input: FlowInputKind; shape: z.ZodRawShape } {
  const form = formInputsOf(flow);
  if (!form) return { input: "question", shape: { question: z.string().describe("The question or prompt to send to the flow") } };
  const fields: Record<string, z.ZodType> = {};
  for (const input of form) {
    if (typeof input?.name !== "string" || !input.name) continue;
    const field = formField(input);
    if (field) fields[input.name] = field;
  }
  return { input: "form", shape: { form: z.object(fields).describe("Form inputs for the agent flow") } };
}

export function flowTool(flow: FlowToolSource, config: FlowToolConfig, name = flowToolName(config, flow)): FlowTool {
  return { name, description: flowToolDescription(config, flow), flowId: flow.id, ...flowToolInput(flow) };
}

/**
 * Tools for several flows with unique names: a name already taken gets `_2`, `_3`, … (the base
 * shortened so the whole stays within 64 characters). Flows in the order given.
 */
export function uniqueFlowTools(entries: Array<{ flow: FlowToolSource; config: FlowToolConfig }>): FlowTool[] {
  const taken = new Set<string>();
  return entries.map(({ flow, config }) => {
    const base = flowToolName(config, flow);
    let name = base;
    for (let n = 2; taken.has(name); n++) {
      const suffix = `_${n}`;
      name = base.slice(0, MAX_TOOL_NAME - suffix.length) + suffix;
    }
    taken.add(name);
    return flowTool(flow, config, name);
  });
}
