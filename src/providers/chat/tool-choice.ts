// LangChain's `tool_choice` reaches our chat models in three shapes: a mode ("auto", "none", "any",
// "required"), a tool's name, or an object — OpenAI's `{type: "function", function: {name}}` (what
// structured output and Flowise-style forced calls pass) or Anthropic's `{type: "tool", name}`. Each
// provider speaks its own form on the wire; these read the caller's intent once so none of them
// forwards another provider's object (Anthropic, Gemini and Bedrock refuse or ignore it).
import { isObject } from "../../lib/inputs";

export type ToolChoiceMode = "auto" | "none" | "required";

/** The tool a choice forces by name, in any of its shapes; undefined for a mode or nothing. */
export function forcedToolName(choice: unknown): string | undefined {
  if (typeof choice === "string") return ["auto", "none", "any", "required"].includes(choice) ? undefined : choice || undefined;
  if (!isObject(choice)) return undefined;
  if (choice.type === "function" && isObject(choice.function) && typeof choice.function.name === "string") return choice.function.name;
  if (choice.type === "tool" && typeof choice.name === "string") return choice.name;
  return undefined;
}

/** The mode a choice asks for when it names no tool ("any" is "required"); undefined when unset or unknown. */
export function toolChoiceMode(choice: unknown): ToolChoiceMode | undefined {
  const mode = typeof choice === "string" ? choice : isObject(choice) ? choice.type : undefined;
  if (mode === "auto" || mode === "none") return mode;
  if (mode === "any" || mode === "required") return "required";
  return undefined;
}
