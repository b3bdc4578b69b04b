// Tool nodes: what agents call, built by the shared tool registry (src/engine/tools) from the
// node's inputs — calculator, customTool, chainTool, retrieverTool. Each is a LangChain
// StructuredTool, so any agent binds it with model.bindTools() and invokes it with the model's args.
import { buildTool, supportedTools } from "../../tools/registry";
import type { NodeDefinition } from "../types";

export const toolNodes: NodeDefinition[] = supportedTools().map((name) => ({
  name,
  category: "Tools",
  build: ({ node, inputs, ctx, answer }) => buildTool(name, inputs, { ctx, label: `${node.data.label} (${node.id})`, answer }),
}));
