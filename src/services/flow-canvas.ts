// What the studio's canvas and chat ask about a saved flow, in Flowise's shapes: whether it changed
// since it was opened, the inputs a caller may override (flow-config), what its chat may upload,
// and its message statistics (counted in SQL).
import { type SQL, and, eq, gte, inArray, lte, sql } from "drizzle-orm";
import { chatMessage, chatMessageFeedback } from "../db/schema";
import type { ChatType, ChatTypeFilter, FeedbackRating } from "../db/enums";
import { getChatflow } from "./chatflows";
import { credentialList } from "./catalogue/files";
import type { Deps } from "./deps";
import { chatflowWithSpeech } from "./speech";

type Json = Record<string, unknown>;
const record = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

interface CanvasNode {
  id: string;
  data: Json;
}

function nodesOf(flowData: string): { nodes: CanvasNode[]; edges: Json[] } {
  let parsed: Json = {};
  try {
    parsed = record(JSON.parse(flowData));
  } catch {
    // an unreadable graph has no inputs to offer
  }
  const nodes = list(parsed.nodes)
    .map(record)
    .filter((n) => typeof n.id === "string")
    .map((n) => ({ id: n.id as string, data: record(n.data) }));
  return { nodes, edges: list(parsed.edges).map(record) };
}

/**
 * Whether the flow was saved since `since` (its updatedDate as the canvas last read it). The
 * canvas asks with an empty timestamp before re-saving a flow it opened: nothing to compare,
 * so not changed (Flowise's route does not match that URL and its page goes on saving).
 */
export async function hasChanged({ db }: Deps<"db">, id: string, since: string): Promise<{ hasChanged: boolean }> {
  const flow = await getChatflow({ db }, id);
  if (!since) return { hasChanged: false };
  if (since === flow.updatedDate) return { hasChanged: false };
  const a = Date.parse(since);
  return { hasChanged: Number.isNaN(a) || a !== Date.parse(flow.updatedDate) };
}

const withoutCredentialIds = (value: Json): Json =>
  Object.fromEntries(Object.entries(value).filter(([k]) => k !== "FLOWISE_CREDENTIAL_ID"));

function configType(value: unknown): string {
  if (typeof value === "boolean" || typeof value === "number") return typeof value;
  if (Array.isArray(value)) return "array";
  return value && typeof value === "object" ? "object" : "string";
}

/** The flow's overridable inputs, as Flowise's findAvailableConfigs lists them (one entry per node input). */
export async function flowConfig({ db }: Deps<"db">, id: string): Promise<Json[]> {
  const flow = await getChatflow({ db }, id);
  return configsOf(nodesOf(flow.flowData).nodes.map((n) => n.data));
}

/** One node's overridable inputs (POST /node-config: the canvas's node data, as Flowise's getAllNodeConfigs takes it). */
export const nodeConfig = (data: Json): Promise<Json[]> => configsOf([data]);

async function configsOf(nodes: Json[]): Promise<Json[]> {
  const credentials = new Map<string, Json>();
  const file = await credentialList();
  for (const c of list(file.body ? await new Response(file.body).json() : [])) credentials.set(String(record(c).name), record(c));
  const configs: Json[] = [];
  const seen = new Set<string>();
  const push = (obj: Json) => {
    const key = JSON.stringify(obj);
    if (!seen.has(key)) configs.push(obj), seen.add(key);
  };
  for (const data of nodes) {
    const at = { node: data.label, nodeId: data.id };
    for (const p of list(data.inputParams).map(record)) {
      const type = String(p.type);
      if (type === "file") push({ ...at, label: p.label, name: "files", type: p.fileType ?? type });
      else if (type === "options") {
        const names = list(p.options).map((o) => record(o).name);
        push({ ...at, label: p.label, name: p.name, type: p.options ? names.join(", ") : "string" });
      } else if (type === "credential") {
        for (const name of list(p.credentialNames)) {
          for (const input of list(credentials.get(String(name))?.inputs).map(record))
            configs.push({ ...at, label: input.label, name: input.name, type: input.type === "password" ? "string" : input.type });
        }
      } else if (type === "array" && Array.isArray(p.array)) {
        const schema: Json = {};
        for (const item of p.array.map(record)) {
          const options = list(item.options).map((o) => record(o).name);
          schema[String(item.name)] =
            item.type === "options" ? `(${options.join(", ")})` : item.type === "file" ? (item.fileType ?? item.type) : item.type;
        }
        push({ ...at, label: p.label, name: p.name, type, schema });
      } else if (p.loadConfig) {
        const config = record(record(data.inputs)[`${p.name}Config`]);
        if (!Object.keys(config).length) continue;
        const schema = Object.fromEntries(
          Object.entries(withoutCredentialIds(config))
            .filter(([k]) => k !== p.name)
            .map(([k, v]) => [k, configType(v)]),
        );
        push({ ...at, label: `${p.label} Config`, name: `${p.name}Config`, type: "json", schema });
      } else push({ ...at, label: p.label, name: p.name, type: type === "password" ? "string" : type });
    }
  }
  return configs;
}

const IMAGE_TYPES = ["image/gif", "image/jpeg", "image/png", "image/webp"];
// Flowise's list of the chatflow nodes that give a chat model the question's images, less its
// Agentflow V1 ones (supervisor, seqStart): their runtime here shows a model no images, so a chat
// offering the upload would store the images and ignore them.
const IMAGE_NODES = new Set(["llmChain", "conversationChain", "reactAgentChat", "conversationalAgent", "toolAgent"]);
const MODEL_CONFIGS = ["agentModelConfig", "llmModelConfig", "conditionAgentModelConfig"];

/**
 * Whether the flow's chat may upload images, as Flowise decides it (the studio's chat and the
 * widget ask the same): an agentflow whose LLM, Agent or Condition Agent model config allows them,
 * or a chatflow with a node that gives them to its model and a chat model that allows them
 * (engine/core/images.ts shows them to the model).
 */
export function imageUploadsOf(flowData: string) {
  const { nodes } = nodesOf(flowData);
  const isAgentflow = nodes.some((n) => n.data.category === "Agent Flows");
  const allowed = isAgentflow
    ? nodes.some((n) => n.data.category === "Agent Flows" && MODEL_CONFIGS.some((k) => record(record(n.data.inputs)[k]).allowImageUploads))
    : nodes.some((n) => IMAGE_NODES.has(String(n.data.name))) &&
      nodes.some((n) => n.data.category === "Chat Models" && record(n.data.inputs).allowImageUploads === true);
  return { isImageUploadAllowed: allowed, imgUploadSizeAndTypes: allowed ? [{ fileTypes: IMAGE_TYPES, maxUploadSize: 5 }] : [] };
}

/** What the flow's chat may upload, derived from its graph and speech settings as Flowise does. */
export async function uploadsConfig({ db, env }: Deps<"db" | "env">, id: string) {
  // True only when its provider can hear: known, usable here, its credential stored (services/speech).
  const { flow, isSpeechToTextEnabled } = await chatflowWithSpeech({ db, env }, id);
  const { nodes, edges } = nodesOf(flow.flowData);

  const fileUploadSizeAndTypes: { fileTypes: string[]; maxUploadSize: number }[] = [];
  const store = nodes.find((n) => n.data.category === "Vector Stores" && record(n.data.inputs).fileUpload);
  if (store) {
    for (const edge of edges.filter((e) => e.target === store.id && e.targetHandle === `${store.id}-input-document-Document`)) {
      const source = nodes.find((n) => n.id === edge.source);
      const param = list(source?.data.inputParams)
        .map(record)
        .find((p) => p.type === "file" && typeof p.fileType === "string");
      if (param) fileUploadSizeAndTypes.push({ fileTypes: String(param.fileType).split(", "), maxUploadSize: 500 });
    }
  }

  const { isImageUploadAllowed, imgUploadSizeAndTypes } = imageUploadsOf(flow.flowData);
  return {
    isSpeechToTextEnabled,
    isImageUploadAllowed,
    isRAGFileUploadAllowed: fileUploadSizeAndTypes.length > 0,
    imgUploadSizeAndTypes,
    fileUploadSizeAndTypes,
  };
}

export interface StatsFilter {
  chatTypes?: ChatTypeFilter[];
  startDate?: string;
  endDate?: string;
  feedbackTypes?: FeedbackRating[];
}

/**
 * Messages, sessions and feedback of a flow, counted in SQL (one statement) as Flowise's stats:
 * with a feedback filter, only sessions holding such feedback, counting the rated messages and
 * the message just before each.
 */
export async function flowStats({ db }: Deps<"db">, id: string, f: StatsFilter) {
  await getChatflow({ db }, id);
  const m = chatMessage;
  const fb = chatMessageFeedback;
  const where: SQL[] = [eq(m.chatflowid, id)];
  // EVALUATION (a filter value only, never stored) matches no row, as in Flowise.
  if (f.chatTypes?.length) where.push(inArray(m.chatType, f.chatTypes as ChatType[]));
  if (f.startDate) where.push(gte(m.createdDate, f.startDate));
  if (f.endDate) where.push(lte(m.createdDate, f.endDate));
  const base = and(...where);
  if (!f.feedbackTypes?.length) {
    const row = await db
      .select({
        totalMessages: sql<number>`COUNT(*)`,
        totalSessions: sql<number>`COUNT(DISTINCT ${m.sessionId})`,
        totalFeedback: sql<number>`COUNT(DISTINCT ${fb.id})`,
        positiveFeedback: sql<number>`COUNT(DISTINCT CASE WHEN ${fb.rating} = 'THUMBS_UP' THEN ${fb.id} END)`,
      })
      .from(m)
      .leftJoin(fb, eq(fb.messageId, m.id))
      .where(base)
      .get();
    return numbers(row);
  }
  const rated = and(base, inArray(fb.rating, f.feedbackTypes));
  const row = await db
    .select({
      totalSessions: sql<number>`COUNT(DISTINCT ${m.sessionId})`,
      totalFeedback: sql<number>`COUNT(DISTINCT ${fb.id})`,
      positiveFeedback: sql<number>`COUNT(DISTINCT CASE WHEN ${fb.rating} = 'THUMBS_UP' THEN ${fb.id} END)`,
      preceding: sql<number>`(SELECT COUNT(DISTINCT prev.id) FROM chat_message prev
        WHERE prev.chatflowid = ${id} AND prev.id IN (
          SELECT (SELECT p.id FROM chat_message p WHERE p.chatflowid = r.chatflowid AND p.sessionId = r.sessionId
                    AND p.createdDate < r.createdDate ORDER BY p.createdDate DESC LIMIT 1)
          FROM chat_message r INNER JOIN chat_message_feedback rf ON rf.messageId = r.id
          WHERE r.chatflowid = ${id} AND rf.rating IN ${f.feedbackTypes})
        AND prev.id NOT IN (SELECT messageId FROM chat_message_feedback WHERE rating IN ${f.feedbackTypes}))`,
    })
    .from(m)
    .innerJoin(fb, eq(fb.messageId, m.id))
    .where(rated)
    .get();
  const counts = numbers(row);
  return { ...counts, totalMessages: counts.totalFeedback + Number(row?.preceding ?? 0) };
}

function numbers(row: Partial<Record<"totalMessages" | "totalSessions" | "totalFeedback" | "positiveFeedback", unknown>> | undefined) {
  const n = (v: unknown) => Number(v ?? 0);
  return {
    totalMessages: n(row?.totalMessages),
    totalSessions: n(row?.totalSessions),
    totalFeedback: n(row?.totalFeedback),
    positiveFeedback: n(row?.positiveFeedback),
  };
}
