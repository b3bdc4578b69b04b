import type { StructuredToolInterface } from "@langchain/core/tools";
import type { RunContext } from "../core/ports";

/** What building a tool needs besides its inputs. */
export interface ToolDeps {
  ctx: RunContext;
  /** How messages name the node the tool belongs to: "Label (id)". */
  label: string;
  /** Lets a built chain or agent answer a question (chainTool); given by the runtime that built it. */
  answer?(instance: unknown, ctx: RunContext): Promise<string>;
}

/** What a tool node builds: one tool, or a toolkit's list of them. */
export type BuiltTool = StructuredToolInterface | StructuredToolInterface[];

/** One tool per Flowise name; `inputs` are the node's (resolved) inputs, as Flowise names them. */
export interface ToolDefinition {
  name: string;
  build(inputs: Record<string, unknown>, deps: ToolDeps): Promise<BuiltTool>;
}
