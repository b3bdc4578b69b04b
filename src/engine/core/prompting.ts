// Turns a prompt node's templates into the messages a chat model gets. Flowise's rules: each
// template variable takes its promptValue; the one variable left without a value (if exactly one)
// takes the question; an output parser's format instructions go after the (system) template.
import { ChatPromptTemplate, PromptTemplate } from "@langchain/core/prompts";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { fail } from "../../errors";
import { instanceText } from "./resolve";
import { errorMessage } from "../../lib/error-message";

/** A prompt's templates: what a prompt node builds (chatflow) or a node's messages give. */
export interface PromptTemplates {
  /** `string`: one template sent as a user message; `chat`: system + human message templates. */
  type: "string" | "chat";
  template?: string;
  system?: string;
  human?: string;
  /** Template variable → value (references and {{question}} already resolved). */
  promptValues: Record<string, unknown>;
  label: string;
}

const FORMAT = "format_instructions";

function template(text: string, label: string): PromptTemplate {
  try {
    return PromptTemplate.fromTemplate(text);
  } catch (err) {
    throw fail("INVALID_FLOW", `${label}: the template cannot be parsed (${errorMessage(err)}); write literal braces as {{ and }}`);
  }
}

const withFormat = (text: string, formatInstructions: string | undefined) =>
  formatInstructions !== undefined && !text.includes(`{${FORMAT}}`) ? `${text}\n{${FORMAT}}` : text;

/** Values for every variable of the templates, or a 400 naming those that have none. */
function templateValues(
  variables: string[],
  promptValues: Record<string, unknown>,
  question: string,
  label: string,
): Record<string, string> {
  const values: Record<string, string> = {};
  const missing: string[] = [];
  for (const name of new Set(variables)) {
    if (name === FORMAT) continue;
    const v = promptValues[name];
    if (v === undefined || v === null || v === "") missing.push(name);
    else values[name] = instanceText(v);
  }
  if (missing.length === 1) values[missing[0]] = question;
  else if (missing.length > 1) throw fail("INVALID_FLOW", `${label}: please provide Prompt Values for: ${missing.join(", ")}`);
  return values;
}

/** The messages for a prompt instance and a question. */
export async function promptMessages(prompt: PromptTemplates, question: string, formatInstructions?: string): Promise<BaseMessage[]> {
  const extra = formatInstructions !== undefined ? { [FORMAT]: formatInstructions } : {};
  if (prompt.type === "string") {
    const text = prompt.template ?? "";
    if (!text.trim()) throw fail("INVALID_FLOW", `${prompt.label}: the template is empty`);
    const t = template(withFormat(text, formatInstructions), prompt.label);
    const values = templateValues(t.inputVariables, prompt.promptValues, question, prompt.label);
    return [new HumanMessage(await t.format({ ...values, ...extra }))];
  }
  const system = prompt.system?.trim() ? prompt.system : undefined;
  const human = prompt.human?.trim() ? prompt.human : "{input}";
  const sys = system !== undefined ? template(withFormat(system, formatInstructions), prompt.label) : undefined;
  const hum = template(sys ? human : withFormat(human, formatInstructions), prompt.label);
  const variables = [...(sys?.inputVariables ?? []), ...hum.inputVariables];
  const values = { ...templateValues(variables, prompt.promptValues, question, prompt.label), ...extra };
  const parts: Array<[string, string]> = [];
  if (sys) parts.push(["system", sys.template as string]);
  parts.push(["human", hum.template as string]);
  const chat = ChatPromptTemplate.fromMessages(parts);
  return chat.formatMessages(values);
}
