// graphCypherQAChain: Flowise's node over LangChain's GraphCypherQAChain. The question passes
// Flowise's guards (./guards.ts) and the input moderations; the Cypher model writes a statement from
// the graph's schema and the question (the Cypher prompt, LangChain's by default); the statement —
// the text between ``` fences when there are some, without a `cypher` language tag — must be
// read-only, runs on Neo4j with {topK: 10}, and its records (at most 100) are either the answer
// (returnDirect: as a fenced JSON block, and as `json`) or the context the QA model answers from
// (streamed). A statement Neo4j refuses, or one that writes, is answered as "Error: …", as Flowise
// does; a model's or the connection's failure is the run's error (502/504).
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { fail } from "../../../errors";
import { errorMessage } from "../../../lib/error-message";
import { type Neo4jGraph, Neo4jFailure } from "../../../providers/graph/neo4j/graph";
import { callModel } from "../../core/llm";
import type { RunContext } from "../../core/ports";
import { instanceText } from "../../core/resolve";
import type { RunResult, StreamSink } from "../../core/types";
import { type ModerationInstance, type PromptInstance, moderate } from "../instances";
import { INJECTION, MAX_INPUT_LENGTH, MAX_RESULTS, TOO_LONG, WRITE_REFUSED, looksLikeInjection, sanitizeInput, writesData } from "./guards";

export const CYPHER_GENERATION_TEMPLATE = `Task:Generate Cypher statement to query a graph database.
Instructions:
Use only the provided relationship types and properties in the schema.
Do not use any other relationship types or properties that are not provided.
Schema:
{schema}
Note: Do not include any explanations or apologies in your responses.
Do not respond to any questions that might ask anything else than for you to construct a Cypher statement.
Do not include any text except the generated Cypher statement.

The question is:
{question}`;

export const CYPHER_QA_TEMPLATE = `You are an assistant that helps to form nice and human understandable answers.
The information part contains the provided information that you must use to construct an answer.
The provided information is authoritative, you must never doubt it or try to use your internal knowledge to correct it.
Make the answer sound as a response to the question. Do not mention that you based the result on the given information.
Here is an example:

Question: Which managers own Neo4j stocks?
Context:[manager:CTL LLC, manager:JANE STREET GROUP LLC]
Helpful Answer: CTL LLC, JANE STREET GROUP LLC owns Neo4j stocks.

Follow this example when generating answers.
If the provided information is empty, say that you don't know the answer.
Information:
{context}

Question: {question}
Helpful Answer:`;

/** LangChain's chain passes this to every generated statement (`LIMIT $topK` may use it). */
const TOP_K = 10;

export interface GraphCypherQAInstance {
  kind: "graphCypherQAChain";
  label: string;
  graph: Neo4jGraph;
  cypherModel: BaseChatModel;
  qaModel: BaseChatModel;
  cypherPrompt?: PromptInstance;
  qaPrompt?: PromptInstance;
  returnDirect: boolean;
  moderations: ModerationInstance[];
}

export const isGraphCypherQA = (v: unknown): v is GraphCypherQAInstance =>
  !!v && typeof v === "object" && (v as { kind?: unknown }).kind === "graphCypherQAChain";
export const isNeo4jGraph = (v: unknown): v is Neo4jGraph =>
  !!v && typeof v === "object" && (v as { kind?: unknown }).kind === "neo4jGraph";

/** A prompt node's templates as one chat prompt (a string template is one human message). */
function chatPrompt(prompt: PromptInstance): ChatPromptTemplate {
  const parts: Array<[string, string]> = [];
  if (prompt.type === "string") parts.push(["human", prompt.template ?? ""]);
  else {
    if (prompt.system?.trim()) parts.push(["system", prompt.system]);
    if (prompt.human?.trim()) parts.push(["human", prompt.human]);
  }
  try {
    return ChatPromptTemplate.fromMessages(parts);
  } catch (err) {
    throw fail("INVALID_FLOW", `${prompt.label}: the template cannot be parsed (${errorMessage(err)}); write literal braces as {{ and }}`);
  }
}

/** Flowise's check: a Cypher prompt must use {schema} and {question}. */
export function checkCypherPrompt(prompt: PromptInstance | undefined, label: string): void {
  if (!prompt) return;
  const vars = chatPrompt(prompt).inputVariables;
  if (!vars.includes("schema") || !vars.includes("question"))
    throw fail("INVALID_FLOW", `${label}: Cypher Generation Prompt must include {schema} and {question} variables`);
}

/** The messages of a prompt (or LangChain's default template) with the chain's values and the prompt's own. */
async function messagesOf(prompt: PromptInstance | undefined, fallback: string, values: Record<string, string>): Promise<BaseMessage[]> {
  if (!prompt) return [new HumanMessage(fallback.replace(/\{(schema|question|context)\}/g, (_m, k: string) => values[k] ?? ""))];
  const template = chatPrompt(prompt);
  const own = Object.fromEntries(Object.entries(prompt.promptValues).map(([k, v]) => [k, instanceText(v)]));
  const all: Record<string, string> = { ...own, ...values };
  const missing = template.inputVariables.filter((v) => all[v] === undefined);
  if (missing.length) throw fail("INVALID_FLOW", `${prompt.label}: please provide Prompt Values for: ${missing.join(", ")}`);
  return template.formatMessages(all);
}

/** The statement in what the model wrote: inside the first ``` fence (its `cypher` tag left out), else all of it. */
export function extractCypher(text: string): string {
  const fenced = /```(.*?)```/s.exec(text);
  const inner = fenced ? fenced[1] : text;
  return inner.replace(/^\s*cypher\b/i, "").trim();
}

class QueryRefused extends Error {}

const fencedJson = (json: unknown) => `\`\`\`json\n${JSON.stringify(json, null, 2)}\n\`\`\``;

export async function runGraphCypherQA(
  chain: GraphCypherQAInstance,
  ctx: RunContext,
  sink?: StreamSink,
): Promise<Omit<RunResult, "memoryType">> {
  const reply = (text: string) => {
    sink?.token(text);
    return { text };
  };
  if (ctx.question.length > MAX_INPUT_LENGTH) return reply(TOO_LONG);
  if (looksLikeInjection(ctx.question)) return reply(INJECTION);
  const checked = await moderate(sanitizeInput(ctx.question), chain.moderations);
  if ("refusal" in checked) return reply(checked.refusal);
  const { question } = checked;

  let records: Record<string, unknown>[];
  try {
    const ask = await messagesOf(chain.cypherPrompt, CYPHER_GENERATION_TEMPLATE, { schema: chain.graph.getSchema(), question });
    const cypher = extractCypher(await callModel(chain.cypherModel, ask, ctx));
    if (writesData(cypher)) throw new QueryRefused(WRITE_REFUSED);
    records = (await chain.graph.query(cypher, { topK: TOP_K })).slice(0, MAX_RESULTS);
  } catch (err) {
    if (err instanceof QueryRefused || err instanceof Neo4jFailure) return reply(`Error: ${err.message}`);
    throw err;
  }
  if (chain.returnDirect) {
    const text = fencedJson(records);
    sink?.token(text);
    return { text, json: records };
  }
  const answer = await messagesOf(chain.qaPrompt, CYPHER_QA_TEMPLATE, { context: JSON.stringify(records), question });
  return { text: await callModel(chain.qaModel, answer, ctx, sink) };
}
