// fewShotPromptTemplate (Flowise's "Few Shot Prompt Template", Prompts): LangChain's
// FewShotPromptTemplate — the prefix, each example formatted with the Example Prompt (a Prompt
// Template node), and the suffix, joined by the Example Separator (a blank line by default); the
// result is one template whose variables the chain fills like a Prompt Template's (the single one
// left over takes the question). f-string templates only: jinja-2 is a 400 saying so.
import { PromptTemplate } from "@langchain/core/prompts";
import { fail } from "../../../errors";
import { errorMessage } from "../../../lib/error-message";
import { isObject } from "../../core/inputs";
import { instanceText } from "../../core/resolve";
import { type PromptInstance, isPrompt } from "../instances";
import type { NodeDefinition } from "../types";

function examplesOf(raw: unknown, label: string): Record<string, unknown>[] {
  let examples: unknown = raw;
  if (typeof raw === "string") {
    if (!raw.trim()) return [];
    try {
      examples = JSON.parse(raw);
    } catch (err) {
      throw fail("INVALID_FLOW", `${label}: Invalid JSON in the FewShotPromptTemplate's examples: ${errorMessage(err)}`);
    }
  }
  if (examples === undefined || examples === null) return [];
  if (!Array.isArray(examples) || !examples.every(isObject))
    throw fail("INVALID_FLOW", `${label}: its examples must be a JSON list of objects (variable → value)`);
  return examples;
}

const text = (v: unknown) => (typeof v === "string" ? v : "");

export const fewShotPromptNode: NodeDefinition = {
  name: "fewShotPromptTemplate",
  category: "Prompts",
  async build({ node, inputs }): Promise<PromptInstance> {
    const label = node.data.label;
    if (inputs.templateFormat === "jinja-2")
      throw fail("INVALID_FLOW", `${label}: jinja-2 templates are not supported; use the f-string Template Format`);
    const examplePrompt = inputs.examplePrompt;
    if (!isPrompt(examplePrompt) || examplePrompt.type !== "string" || !examplePrompt.template)
      throw fail("INVALID_FLOW", `${label} needs a Prompt Template connected to its Example Prompt input`);
    const format = PromptTemplate.fromTemplate(examplePrompt.template);
    const formatted: string[] = [];
    for (const [i, example] of examplesOf(inputs.examples, label).entries()) {
      const values = Object.fromEntries(Object.entries(example).map(([k, v]) => [k, instanceText(v)]));
      try {
        formatted.push(await format.format({ ...values }));
      } catch (err) {
        throw fail("INVALID_FLOW", `${label}: example ${i + 1} does not fit the Example Prompt: ${errorMessage(err)}`);
      }
    }
    const separator = typeof inputs.exampleSeparator === "string" && inputs.exampleSeparator ? inputs.exampleSeparator : "\n\n";
    const template = [text(inputs.prefix), ...formatted, text(inputs.suffix)].join(separator);
    if (!template.trim()) throw fail("INVALID_FLOW", `${label}: the prompt is empty`);
    return { kind: "prompt", type: "string", template, promptValues: {}, label };
  },
};
