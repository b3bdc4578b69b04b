// Tool nodes: what agents call, built by the shared tool registry (src/engine/tools) from the
// node's inputs (its credential id as `credential`) — calculator, customTool, the search tools…. Each is a LangChain
// StructuredTool, so any agent binds it with model.bindTools() and invokes it with the model's args.
import { providerConfig } from "../../core/inputs";
import { buildTool, toolNodeNames } from "../../tools/registry";
import type { NodeDefinition } from "../types";

export const toolNodes: NodeDefinition[] = toolNodeNames().map((name) => ({
  name,
  category: "Tools",
  build: ({ node, inputs, ctx, answer }) =>
    buildTool(name, providerConfig(node, inputs), { ctx, label: `${node.data.label} (${node.id})`, answer }),
}));
