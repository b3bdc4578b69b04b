import type { z } from "@hono/zod-openapi";
import { and, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { VECTORIZE_PROVIDER, deleteVectorizeIds } from "../providers/vectorstores/vectorize";
import type { Db } from "../env";
import { ApiError, invalid, notFound, unauthorized } from "../errors";
import { FAISS_NAMESPACE_PREFIX } from "../providers/vectorstores/faiss-r2";
import {
  apiKey,
  assistant,
  chatFlow,
  chatMessage,
  chatMessageFeedback,
  lead,
  localEmbedding,
  localEmbeddingVersion,
  mcpServer,
  openaiResponse,
  recordManager,
  scheduleRecord,
  scheduleTriggerLog,
  upsertHistory,
  vectorDocument,
  webhookSecret,
} from "../db/schema";
import type { ChatflowCreate, ChatflowUpdate } from "../schemas/chatflows";
import type { ChatflowType } from "../db/enums";
import type { PageQueryInput } from "../schemas/common";
import { type Resource, findRecord, insertRecord, listRecords, updateRecord } from "./crud";
import { findApiKeyByToken } from "./apikeys";
import { deleteFilesUnder } from "./files";
import { flowExecutionsDeletion } from "./executions";
import { canStreamFlow, parseFlowData, unsupportedNodes } from "../engine";
import { agentflowTypeFault, postProcessingOf, runsOnAgentflowRuntime } from "./runs";
import type { EndpointEnv } from "../lib/outbound";
import { endpointRefusals } from "./flow-endpoints";
import { syncSchedule } from "./schedules/records";
import type { Deps } from "./deps";

const chatflows: Resource<typeof chatFlow> = { table: chatFlow, label: "Chatflow", sqlName: "chat_flow" };

export type ChatflowRow = typeof chatFlow.$inferSelect;

async function assertApiKeyExists(db: Db, apikeyid: string | null | undefined): Promise<void> {
  if (!apikeyid) return;
  const found = await db.select({ id: apiKey.id }).from(apiKey).where(eq(apiKey.id, apikeyid)).get();
  if (!found) throw invalid(`apikeyid: API key ${apikeyid} not found`);
}

/**
 * Why a prediction on this flowData would answer 400, said at save time: nodes the engine does not
 * build, or a graph it cannot read. Undefined when neither. (Graph checks that depend on the
 * wiring — an ending node, cycles — are left to prediction: drafts are saved half-built.)
 */
export function flowDataWarning(flowData: string, type?: ChatflowType): string | undefined {
  try {
    if (runsOnAgentflowRuntime(type)) return agentflowTypeFault(type!, flowData);
    const unknown = unsupportedNodes(parseFlowData(flowData));
    return unknown.length ? `Unsupported nodes: ${unknown.join(", ")}` : undefined;
  } catch (err) {
    if (err instanceof ApiError) return `flowData cannot be run: ${err.message}`;
    throw err;
  }
}

/**
 * The saved record as stored, plus `warning` only when the flowData just saved has one: what
 * flowDataWarning says, and endpoints the outbound policy refuses (under `outbound`'s settings).
 */
function withWarning<T extends ChatflowRow>(
  row: T,
  flowData: string | undefined,
  outbound?: EndpointEnv,
  schedule?: string,
): T & { warning?: string } {
  if (flowData === undefined) return row;
  const warnings = [flowDataWarning(flowData, row.type), ...(outbound ? endpointRefusals(flowData, outbound) : []), schedule].filter(
    Boolean,
  );
  return warnings.length ? { ...row, warning: warnings.join("; ") } : row;
}

/** `env`: the outbound policy's settings the saved flowData's endpoints are checked against. */
export async function createChatflow({ db, env }: Deps<"db" | "env">, input: z.infer<typeof ChatflowCreate>) {
  await assertApiKeyExists(db, input.apikeyid);
  const row = await insertRecord(db, chatflows, input);
  // A scheduled agentflow keeps a schedule row (services/schedules); why it cannot run is a warning.
  return withWarning(row, input.flowData, env, await syncSchedule({ db }, row, true));
}

export async function updateChatflow({ db, env }: Deps<"db" | "env">, id: string, patch: z.infer<typeof ChatflowUpdate>) {
  await assertApiKeyExists(db, patch.apikeyid);
  const row = await updateRecord(db, chatflows, id, patch);
  const schedule = patch.flowData !== undefined || patch.type ? await syncSchedule({ db }, row) : undefined;
  // A new type reads the same graph differently (an agentflow's nodes are not a chatflow's).
  return withWarning(row, patch.flowData ?? (patch.type ? row.flowData : undefined), env, schedule);
}

export const getChatflow = ({ db }: Deps<"db">, id: string) => findRecord(db, chatflows, id);

/**
 * Whether a chatflow's answers stream (its widget asks before the first message). A graph that
 * cannot run cannot stream (false; prediction reports why); nor does an agentflow whose final text
 * post-processing rewrites the answer, which then comes as JSON (as Flowise decides).
 */
export async function chatflowStreams({ db }: Deps<"db">, id: string): Promise<boolean> {
  const flow = await getChatflow({ db }, id);
  const rewritten = runsOnAgentflowRuntime(flow.type) && postProcessingOf(flow.chatbotConfig) !== undefined;
  return !rewritten && canStreamFlow(flow.type, flow.flowData);
}

/** Which chatflow records a caller may see: types and ids, null meaning all. */
export interface FlowVisibility {
  types: ChatflowType[] | null;
  ids: string[] | null;
}

// Id lists go as one JSON parameter (json_each), so a key limited to many chatflows stays within D1's parameter limit.
const visibleWhere = (v: FlowVisibility) =>
  and(
    v.types ? inArray(chatFlow.type, v.types) : undefined,
    v.ids ? sql`${chatFlow.id} IN (SELECT value FROM json_each(${JSON.stringify(v.ids)}))` : undefined,
  );

export const listChatflows = ({ db }: Deps<"db">, page: PageQueryInput, type: ChatflowType | undefined, visible: FlowVisibility) =>
  listRecords(db, chatflows, page, { where: and(type ? eq(chatFlow.type, type) : undefined, visibleWhere(visible)) });

/**
 * Deletes the chatflow with everything recorded under it: messages, feedback, leads, executions, history, its MCP server config,
 * its webhook secret, its schedule and trigger logs,
 * files, and the vectors of its in-flow vector stores (every namespace `<chatflowid>_<node>`), so
 * a chatflow later created with the same id starts empty.
 */
export async function deleteChatflow(deps: Deps<"db" | "env" | "files" | "waitUntil">, id: string) {
  const { db, env, files } = deps;
  await getChatflow(deps, id);
  // Its executions go in the batch below; their asynchronous runs' files (R2) once the rows are gone.
  const executions = await flowExecutionsDeletion(deps, id);
  // Namespaces beginning `<id>_`: a range on the indexed column ('`' sorts right after '_').
  const underFlow = (column: SQLiteColumn) => and(gte(column, `${id}_`), lt(column, `${id}\``));
  const vectorizeIds = await db
    .select({ id: vectorDocument.id })
    .from(vectorDocument)
    .where(and(eq(vectorDocument.provider, VECTORIZE_PROVIDER), underFlow(vectorDocument.namespace)))
    .all();
  await deleteVectorizeIds(
    env.VECTORIZE,
    vectorizeIds.map((r) => r.id),
  );
  const deleted = await db.batch([
    db.delete(chatMessageFeedback).where(eq(chatMessageFeedback.chatflowid, id)),
    db.delete(chatMessage).where(eq(chatMessage.chatflowid, id)),
    executions.statement,
    db.delete(openaiResponse).where(eq(openaiResponse.chatflowid, id)),
    db.delete(lead).where(eq(lead.chatflowid, id)),
    db.delete(upsertHistory).where(eq(upsertHistory.chatflowid, id)),
    db.delete(localEmbedding).where(underFlow(localEmbedding.namespace)),
    db.delete(localEmbeddingVersion).where(underFlow(localEmbeddingVersion.namespace)),
    db.delete(vectorDocument).where(underFlow(vectorDocument.namespace)),
    db.delete(recordManager).where(underFlow(recordManager.namespace)),
    db.delete(mcpServer).where(eq(mcpServer.chatflowId, id)),
    db.delete(webhookSecret).where(eq(webhookSecret.chatflowId, id)),
    db.delete(scheduleRecord).where(eq(scheduleRecord.targetId, id)),
    db.delete(scheduleTriggerLog).where(eq(scheduleTriggerLog.targetId, id)),
    db.delete(chatFlow).where(eq(chatFlow.id, id)).returning({ id: chatFlow.id }),
  ]);
  // Two deletes at once both pass the lookup above: only the one whose batch removed the row says so.
  if (!(deleted[deleted.length - 1] as { id: string }[]).length) throw notFound(`Chatflow ${id} not found`);
  await deleteFilesUnder(files, `${id}/`);
  await deleteFilesUnder(files, `${FAISS_NAMESPACE_PREFIX}${id}_`);
  executions.removeFiles();
  return { deleted: 1 };
}

/** The chatflows (of those the caller may see) bound to the API key whose value is `key`; 401 when no such key exists. */
export async function listChatflowsByApiKey({ db }: Deps<"db">, key: string, visible: FlowVisibility) {
  const found = await findApiKeyByToken({ db }, key);
  if (!found) throw unauthorized("Unauthorized: unknown API key");
  return db
    .select()
    .from(chatFlow)
    .where(and(eq(chatFlow.apikeyid, found.id), visibleWhere(visible)))
    .orderBy(chatFlow.createdDate)
    .all();
}

/** What messages, feedback and leads hang off, with what the run rule and rate limit read. */
export interface ConversationOwner {
  id: string;
  kind: "chatflow" | "assistant";
  isPublic: boolean;
  apikeyid: string | null;
  apiConfig: string | null;
  chatbotConfig: string | null;
}

/**
 * A chatflow, or an assistant (predictions on an assistant are recorded under its id).
 * Assistants are never public, bound to no key and without a rate limit.
 */
export async function findConversationOwner({ db }: Deps<"db">, id: string): Promise<ConversationOwner> {
  const flow = await db
    .select({
      id: chatFlow.id,
      isPublic: chatFlow.isPublic,
      apikeyid: chatFlow.apikeyid,
      apiConfig: chatFlow.apiConfig,
      chatbotConfig: chatFlow.chatbotConfig,
    })
    .from(chatFlow)
    .where(eq(chatFlow.id, id))
    .get();
  if (flow) return { ...flow, kind: "chatflow" };
  const asst = await db.select({ id: assistant.id }).from(assistant).where(eq(assistant.id, id)).get();
  if (asst) return { id: asst.id, kind: "assistant", isPublic: false, apikeyid: null, apiConfig: null, chatbotConfig: null };
  throw notFound(`Chatflow ${id} not found`);
}
