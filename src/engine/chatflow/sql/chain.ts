// sqlDatabaseChain: Flowise's contract (LangChain's SqlDatabaseChain). The model is asked for a query
// ("…Question: <q>\nSQLQuery:", stopped at "\nSQLResult:"), the query runs on the database, and the
// model is asked again with the query and its result appended ("…SQLResult: <json>\nAnswer:"); that
// second answer is the chain's answer (streamed). A query the database refuses — or the read-only
// rule refuses — is not an error of the run: the model sees the error as the SQLResult and answers.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage } from "@langchain/core/messages";
import { PromptTemplate } from "@langchain/core/prompts";
import { fail } from "../../../errors";
import { type SqlDatabase, SqlQueryError } from "../../../providers/sql/types";
import { callModel } from "../../core/llm";
import type { RunContext } from "../../core/ports";
import type { RunResult, StreamSink } from "../../core/types";
import { type ModerationInstance, moderate } from "../instances";
import { SQL_PROMPTS, SQL_STOP } from "./prompts";
import { type TableSelection, selectTables, tableInfo } from "./table-info";
import { errorMessage } from "../../../lib/error-message";

/** A query result longer than this (as JSON) is cut for the prompt. */
const MAX_RESULT_CHARS = 32_000;

export interface SqlChainInstance {
  kind: "sqlDatabaseChain";
  label: string;
  model: BaseChatModel;
  database: string;
  url: string;
  tables: TableSelection;
  sampleRows: number;
  topK: number;
  customPrompt?: string;
  allowWrites: boolean;
  moderations: ModerationInstance[];
}

export const isSqlChain = (v: unknown): v is SqlChainInstance =>
  !!v && typeof v === "object" && (v as { kind?: unknown }).kind === "sqlDatabaseChain";

/** The model's query as something to run: no fences, no quotes around it, nothing after the stop. */
function cleanQuery(text: string): string {
  let q = text.split(SQL_STOP[0])[0].trim();
  const fenced = /^```[a-z]*\s*\n?([\s\S]*?)\n?```$/i.exec(q);
  if (fenced) q = fenced[1].trim();
  q = q.replace(/^SQLQuery:\s*/i, "");
  if (q.length > 1 && q.startsWith('"') && q.endsWith('"')) q = q.slice(1, -1).replace(/\\"/g, '"').trim();
  return q;
}

/** BigInt-safe JSON of the rows, cut at MAX_RESULT_CHARS; a cut says so in words. */
function resultText(rows: unknown[], truncated: boolean, maxRows: number): string {
  const json = JSON.stringify(rows, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
  if (json.length > MAX_RESULT_CHARS)
    return `${json.slice(0, MAX_RESULT_CHARS)} (cut: the result is longer than ${MAX_RESULT_CHARS} characters)`;
  return truncated ? `${json} (cut: the statement returned more than ${maxRows} rows)` : json;
}

async function promptFor(chain: SqlChainInstance, dialect: string, info: string, input: string): Promise<string> {
  const values = { dialect, top_k: String(chain.topK), table_info: info, input };
  if (!chain.customPrompt)
    return SQL_PROMPTS[dialect as keyof typeof SQL_PROMPTS].replace(
      /\{(dialect|top_k|table_info|input)\}/g,
      (_m, k: keyof typeof values) => values[k],
    );
  try {
    const template = PromptTemplate.fromTemplate(chain.customPrompt);
    const used = Object.fromEntries(template.inputVariables.map((v) => [v, values[v as keyof typeof values]]));
    const missing = template.inputVariables.filter((v) => !(v in values));
    if (missing.length) throw new Error(`unknown variables ${missing.join(", ")} (it may use {input}, {dialect}, {table_info}, {top_k})`);
    return await template.format(used);
  } catch (err) {
    throw fail("INVALID_FLOW", `${chain.label}: the custom prompt cannot be used: ${errorMessage(err)}`);
  }
}

async function askDatabase(db: SqlDatabase, query: string, chain: SqlChainInstance, maxRows: number): Promise<string> {
  try {
    const { rows, truncated } = await db.query(query, { maxRows, allowWrites: chain.allowWrites });
    return resultText(rows, truncated, maxRows);
  } catch (err) {
    if (err instanceof SqlQueryError) return JSON.stringify(`Error: ${err.message}`);
    throw err;
  }
}

export async function runSqlChain(chain: SqlChainInstance, ctx: RunContext, sink?: StreamSink): Promise<Omit<RunResult, "memoryType">> {
  const checked = await moderate(ctx.question, chain.moderations);
  if ("refusal" in checked) {
    sink?.token(checked.refusal);
    return { text: checked.refusal };
  }
  const db = ctx.runtime.sql.open(chain.database, chain.url, chain.allowWrites);
  try {
    const tables = selectTables(await db.tables(), chain.tables, chain.label);
    const info = await tableInfo(db, tables, chain.sampleRows);
    const model = chain.model.withConfig({ stop: SQL_STOP }) as unknown as BaseChatModel;
    let input = `${checked.question}\nSQLQuery:`;
    const written = await callModel(model, [new HumanMessage(await promptFor(chain, db.dialect, info, input))], ctx);
    const query = cleanQuery(written);
    const result = await askDatabase(db, query, chain, ctx.runtime.limits.sqlRows);
    input += `${query}\nSQLResult: ${result}\nAnswer:`;
    const text = await callModel(model, [new HumanMessage(await promptFor(chain, db.dialect, info, input))], ctx, sink);
    return { text };
  } finally {
    await db.close();
  }
}
