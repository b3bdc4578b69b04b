// Response synthesizer nodes (Flowise's "Response Synthesizer" category): each builds the
// synthesizer a query engine answers with, its prompts from the node's inputs (an empty input
// takes the node's default, which is LlamaIndex's).
import { str } from "../../../core/inputs";
import type { NodeDefinition } from "../../types";
import { DEFAULT_REFINE_PROMPT, DEFAULT_TEXT_QA_PROMPT, DEFAULT_TREE_SUMMARIZE_PROMPT } from "./prompts";
import type { SynthesizerInstance, SynthesizerType } from "./synthesize";

const CATEGORY = "Response Synthesizer";

function synthesizerNode(
  name: string,
  type: SynthesizerType,
  prompts: (inputs: Record<string, unknown>) => { textQAPrompt: string; refinePrompt?: string },
): NodeDefinition {
  return {
    name,
    category: CATEGORY,
    build: async ({ inputs }): Promise<SynthesizerInstance> => {
      const { textQAPrompt, refinePrompt } = prompts(inputs);
      return { kind: "responseSynthesizer", type, textQAPrompt, refinePrompt: refinePrompt ?? DEFAULT_REFINE_PROMPT };
    },
  };
}

const refinePrompts = (inputs: Record<string, unknown>) => ({
  textQAPrompt: str(inputs.textQAPrompt) ?? DEFAULT_TEXT_QA_PROMPT,
  refinePrompt: str(inputs.refinePrompt) ?? DEFAULT_REFINE_PROMPT,
});

export const synthesizerNodes: NodeDefinition[] = [
  synthesizerNode("compactrefineLlamaIndex", "CompactAndRefine", refinePrompts),
  synthesizerNode("refineLlamaIndex", "Refine", refinePrompts),
  synthesizerNode("treeSummarizeLlamaIndex", "TreeSummarize", (inputs) => ({
    textQAPrompt: str(inputs.prompt) ?? DEFAULT_TREE_SUMMARIZE_PROMPT,
  })),
  // No inputs: Flowise builds it without a template, so LlamaIndex's text QA prompt.
  synthesizerNode("simpleResponseBuilderLlamaIndex", "SimpleResponseBuilder", () => ({ textQAPrompt: DEFAULT_TEXT_QA_PROMPT })),
];
