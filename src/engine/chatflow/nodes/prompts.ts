// Prompt nodes: their instance carries the templates and the resolved promptValues; the chain that
// uses them fills the variables (see ../prompting.ts).
import { fail } from "../../../errors";
import type { PromptInstance } from "../instances";
import type { NodeDefinition } from "../types";
import { str } from "../../core/inputs";
import { fewShotPromptNode } from "./few-shot-prompt";
import { promptLangFuseNode } from "./prompt-langfuse";

const CATEGORY = "Prompts";

function promptValuesOf(value: unknown, label: string): Record<string, unknown> {
  if (value === undefined || value === null || value === "") return {};
  if (typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  throw fail("INVALID_FLOW", `${label}: promptValues must be a JSON object`);
}

export const promptNodes: NodeDefinition[] = [
  {
    name: "promptTemplate",
    category: CATEGORY,
    async build({ node, inputs }): Promise<PromptInstance> {
      const template = typeof inputs.template === "string" ? inputs.template : "";
      if (!template.trim()) throw fail("INVALID_FLOW", `${node.data.label}: the template is empty`);
      return {
        kind: "prompt",
        type: "string",
        template,
        promptValues: promptValuesOf(inputs.promptValues, node.data.label),
        label: node.data.label,
      };
    },
  },
  {
    name: "chatPromptTemplate",
    category: CATEGORY,
    async build({ node, inputs }): Promise<PromptInstance> {
      const system = typeof inputs.systemMessagePrompt === "string" ? inputs.systemMessagePrompt : undefined;
      const human = typeof inputs.humanMessagePrompt === "string" ? inputs.humanMessagePrompt : undefined;
      if (!str(system) && !str(human)) throw fail("INVALID_FLOW", `${node.data.label}: give a system or a human message`);
      return {
        kind: "prompt",
        type: "chat",
        system,
        human,
        promptValues: promptValuesOf(inputs.promptValues, node.data.label),
        label: node.data.label,
      };
    },
  },
  fewShotPromptNode,
  promptLangFuseNode,
];
