// csvAgent: Flowise's contract with JavaScript in place of Python. The CSV is parsed in the worker;
// the model is shown its columns and types and writes code over `df` (the rows); the code runs in
// the QuickJS sandbox (time, slice and memory limits; no access to the worker); the model then
// rephrases the code's result as a standalone answer (streamed). No result: the code is the answer,
// as in Flowise. Code that fails is a 502 quoting the code, as Flowise's error does.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage } from "@langchain/core/messages";
import { ApiError, fail } from "../../../errors";
import { RunAborted } from "../../../lib/run-control";
import { callModel } from "../../core/llm";
import type { RunContext } from "../../core/ports";
import type { RunResult, StreamSink } from "../../core/types";
import type { LoaderFile } from "../../../providers/loaders/types";
import { type ModerationInstance, moderate } from "../instances";
import { flowOf } from "../../tools/custom";
import { frameOf, rowChunks } from "./frame";
import { ANSWER_PROMPT, CODE_PROMPT, fill } from "./prompts";
import { errorMessage } from "../../../lib/error-message";

export interface CsvAgentInstance {
  kind: "csvAgent";
  label: string;
  model: BaseChatModel;
  files: LoaderFile[];
  separator?: string;
  systemMessage?: string;
  moderations: ModerationInstance[];
}

export const isCsvAgent = (v: unknown): v is CsvAgentInstance =>
  !!v && typeof v === "object" && (v as { kind?: unknown }).kind === "csvAgent";

// Builds `df` from the row chunks, waiting on a timer between chunks so that no stretch of parsing
// reaches the sandbox's slice limit (one line: the model's code keeps its line numbers + 1).
const LOAD_DF =
  "const df = []; for (const part of $rows) { for (const row of JSON.parse(part)) df.push(row); await new " +
  "Promise((resolve) => setTimeout(resolve, 0)); }";

const DECLARATION = /^(const|let|var|if|for|while|do|switch|try|function|class|return|throw|\}|\/\/|\/\*)/;

/**
 * The model's code as a function body over `df`: fences dropped; code without a `return` returns its
 * last line when that line is an expression (as Python's last expression is Flowise's result).
 */
function codeBody(text: string): string {
  let code = text.trim();
  const fenced = /^```[a-z]*\s*\n?([\s\S]*?)\n?```$/i.exec(code);
  if (fenced) code = fenced[1].trim();
  if (!/\breturn\b/.test(code)) {
    const lines = code.split("\n");
    const last = lines.length - 1;
    const line = lines[last].trim();
    if (line && !DECLARATION.test(line)) lines[last] = `return (${line.replace(/;+\s*$/, "")});`;
    code = lines.join("\n");
  }
  return code;
}

export async function runCsvAgent(agent: CsvAgentInstance, ctx: RunContext, sink?: StreamSink): Promise<Omit<RunResult, "memoryType">> {
  const checked = await moderate(ctx.question, agent.moderations);
  if ("refusal" in checked) {
    sink?.token(checked.refusal);
    return { text: checked.refusal };
  }
  const question = checked.question;
  const frame = await frameOf(agent.files, ctx.runtime.limits, agent.separator);
  const codePrompt = fill(CODE_PROMPT, { dict: JSON.stringify(frame.types), question });
  const code = (await callModel(agent.model, [new HumanMessage(codePrompt)], ctx)).trim();
  if (!code) return { text: "" };

  let result: string;
  try {
    result = await ctx.runtime.code.run(`${LOAD_DF}\n${codeBody(code)}`, {
      args: { rows: rowChunks(frame.rows) },
      vars: ctx.vars,
      flow: flowOf(ctx),
      signal: ctx.signal,
    });
  } catch (err) {
    if (err instanceof RunAborted || (err instanceof ApiError && err.status !== 400)) throw err;
    const why = errorMessage(err);
    throw fail(
      "MODEL_FAILED",
      `${agent.label}: Sorry, I'm unable to find answer for question: "${question}" using following code: "${code}" (${why})`,
    );
  }
  if (!result) {
    sink?.token(code);
    return { text: code };
  }
  const template = agent.systemMessage ? `${agent.systemMessage}\n${ANSWER_PROMPT}` : ANSWER_PROMPT;
  const text = await callModel(agent.model, [new HumanMessage(fill(template, { question, answer: result }))], ctx, sink);
  return { text };
}
