// Flowise 3.1.4's export file, section by section: each record checked (the same rules as the
// create endpoints, with Flowise's own field shapes: JSON fields as strings, dates as ISO strings,
// extra fields such as workspaceId ignored) and turned into the rows it becomes here. References
// between records are noted in the ledger, which checks them once the whole file was read.
import { z } from "@hono/zod-openapi";
import {
  ASSISTANT_TYPES,
  CHATFLOW_TYPES,
  type ChatflowType,
  DOCUMENT_STORE_STATUSES,
  EXECUTION_STATES,
  FEEDBACK_RATINGS,
  MESSAGE_ROLES,
} from "../../db/enums";
import { sha256Hex } from "../../lib/crypto";
import { jsonString, name, text, uuid } from "../../schemas/common";
import type { Ledger } from "./ledger";
import type { TableName } from "./tables";

/** Flowise's sections of the export file, in the order Flowise writes them. */
export const SECTIONS = [
  "AgentFlow",
  "AgentFlowV2",
  "AssistantCustom",
  "AssistantFlow",
  "AssistantOpenAI",
  "AssistantAzure",
  "ChatFlow",
  "ChatMessage",
  "ChatMessageFeedback",
  "CustomTemplate",
  "DocumentStore",
  "DocumentStoreFileChunk",
  "Execution",
  "Tool",
  "Variable",
] as const;
export type Section = (typeof SECTIONS)[number];

/** Sections Flowise writes whose records have no counterpart here: counted as skipped, never an error. */
export const SKIPPED_SECTIONS: ReadonlySet<string> = new Set(["CustomTemplate"]);

/** Chat types Flowise 3.1.4 stores, and edgeflow's own. */
const CHAT_TYPES_ACCEPTED = ["INTERNAL", "EXTERNAL", "EVALUATION", "MCP", "WEBHOOK", "SCHEDULED", "OPENAI"] as const;

/** What reading a record gives: its rows, by table. */
export type RowOut = (table: TableName, row: unknown[]) => void;

const emptyToNull = (v: unknown) => (v === "" ? null : v);
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(emptyToNull, schema.nullish());

/** A date as Flowise's JSON has it (ISO string); missing → now, unreadable → an issue. */
const date = () =>
  z
    .preprocess((v) => (v === undefined || v === null || v === "" ? new Date().toISOString() : v), z.union([z.string(), z.number()]))
    .transform((v, ctx) => {
      const t = typeof v === "number" ? v : Date.parse(v);
      if (Number.isNaN(t)) {
        ctx.addIssue({ code: "custom", message: "must be an ISO 8601 date" });
        return z.NEVER;
      }
      return new Date(t).toISOString();
    });
const optionalDate = () => z.preprocess(emptyToNull, z.union([z.null(), z.undefined(), date()])).transform((v) => v ?? null);

const flag = () =>
  z
    .preprocess((v) => (v === 1 || v === "true" ? true : v === 0 || v === "false" ? false : v), z.boolean())
    .nullish()
    .transform((v) => (v ? 1 : 0));

// Field sizes as the create endpoints take them (D1 rows stop at 2 MB).
const FLOW_DATA_BYTES = 1_800_000;
const CONFIG_BYTES = 100_000;
const config = () => optional(jsonString(CONFIG_BYTES));
const bigJson = () => optional(jsonString(1_000_000));

const Chatflow = z.object({
  id: uuid(),
  name: name(),
  flowData: jsonString(FLOW_DATA_BYTES, true),
  deployed: flag(),
  isPublic: flag(),
  apikeyid: optional(uuid()),
  chatbotConfig: config(),
  apiConfig: config(),
  analytic: config(),
  speechToText: config(),
  textToSpeech: config(),
  followUpPrompts: config(),
  category: optional(text(1000)),
  type: z.enum(CHATFLOW_TYPES).optional(),
  mcpServerConfig: config(),
  createdDate: date(),
  updatedDate: date(),
});

const McpServerConfig = z.object({
  enabled: z.boolean().optional(),
  token: z.string().max(1000).optional(),
  toolName: z.string().max(64).optional(),
  description: z.string().max(10_000).optional(),
});

const Assistant = z.object({
  id: uuid(),
  // Flowise keeps details as a JSON string; an object is taken too.
  details: z.union([jsonString(200_000, true), z.record(z.string(), z.unknown()).transform((d) => JSON.stringify(d))]),
  credential: optional(text(1000)),
  iconSrc: optional(text(10_000)),
  type: z.enum(ASSISTANT_TYPES).optional(),
  createdDate: date(),
  updatedDate: date(),
});

const Tool = z.object({
  id: uuid(),
  name: name(),
  description: optional(text(100_000)),
  color: optional(text(100)),
  iconSrc: optional(text(10_000)),
  schema: optional(jsonString(200_000)),
  func: optional(text(500_000)),
  createdDate: date(),
  updatedDate: date(),
});

const Variable = z.object({
  id: uuid(),
  name: text(255).pipe(z.string().trim().min(1, "must not be empty")),
  value: z.string().max(100_000).nullish(),
  // Flowise's column default is "string" (a static value).
  type: z.preprocess((v) => (v === undefined || v === null || v === "" || v === "string" ? "static" : v), z.enum(["static", "runtime"])),
  createdDate: date(),
  updatedDate: date(),
});

const LoaderFile = z.looseObject({ id: z.string().optional(), name: z.string().optional() });
const Loader = z.object({
  id: uuid(),
  loaderId: text(200).pipe(z.string().min(1, "must not be empty")),
  loaderName: z.string().max(1000).nullish(),
  loaderConfig: z.record(z.string(), z.unknown()).nullish(),
  splitterId: z.string().max(200).nullish(),
  splitterName: z.string().max(1000).nullish(),
  splitterConfig: z.record(z.string(), z.unknown()).nullish(),
  totalChunks: z.number().int().min(0).nullish(),
  totalChars: z.number().int().min(0).nullish(),
  status: z.enum(DOCUMENT_STORE_STATUSES).nullish(),
  error: z.string().max(10_000).nullish(),
  files: z.array(LoaderFile).max(10_000).nullish(),
});

const DocumentStore = z.object({
  id: uuid(),
  name: name(),
  description: optional(text(100_000)),
  loaders: optional(jsonString(1_500_000)),
  whereUsed: optional(jsonString(100_000)),
  status: z.enum(DOCUMENT_STORE_STATUSES).nullish(),
  vectorStoreConfig: optional(jsonString(200_000, true)),
  embeddingConfig: optional(jsonString(200_000, true)),
  recordManagerConfig: optional(jsonString(200_000, true)),
  createdDate: date(),
  updatedDate: date(),
});

const Chunk = z.object({
  id: uuid(),
  docId: uuid(),
  storeId: uuid(),
  chunkNo: z.number().int().min(0),
  pageContent: text(1_000_000),
  metadata: z.preprocess(
    (v) => (v === undefined || v === null || v === "" ? "{}" : typeof v === "object" ? JSON.stringify(v) : v),
    jsonString(1_000_000),
  ),
});

const Execution = z.object({
  id: uuid(),
  executionData: z.preprocess((v) => (v === undefined || v === null || v === "" ? "[]" : v), jsonString(1_900_000)),
  state: z.enum(EXECUTION_STATES),
  agentflowId: uuid(),
  sessionId: text(1000).pipe(z.string().min(1, "must not be empty")),
  action: optional(jsonString(200_000)),
  isPublic: flag(),
  createdDate: date(),
  updatedDate: date(),
  stoppedDate: optionalDate(),
});

const Message = z.object({
  id: uuid(),
  role: z.enum(MESSAGE_ROLES),
  chatflowid: uuid(),
  content: z.string().max(1_000_000),
  sourceDocuments: bigJson(),
  usedTools: bigJson(),
  fileAnnotations: bigJson(),
  agentReasoning: bigJson(),
  fileUploads: bigJson(),
  artifacts: bigJson(),
  action: bigJson(),
  followUpPrompts: bigJson(),
  chatType: z.enum(CHAT_TYPES_ACCEPTED),
  chatId: text(1000).pipe(z.string().min(1, "must not be empty")),
  memoryType: optional(text(1000)),
  sessionId: optional(text(1000)),
  leadEmail: optional(text(1000)),
  executionId: optional(uuid()),
  createdDate: date(),
});

const Feedback = z.object({
  id: uuid(),
  chatflowid: uuid(),
  chatId: text(1000).pipe(z.string().min(1, "must not be empty")),
  messageId: uuid(),
  rating: z.enum(FEEDBACK_RATINGS),
  content: optional(text(10_000)),
  createdDate: date(),
});

/** A record that fails its checks: the import answers 400 with this, naming the record. */
export class RecordError extends Error {
  constructor(
    readonly label: string,
    detail: string,
  ) {
    super(`${label}: ${detail}`);
  }
}

/** "ChatFlow[3] (id …, "name")": how a message names a record. */
export function labelOf(section: string, index: number, raw: unknown): string {
  const r = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
  const parts = [
    typeof r.id === "string" ? `id ${r.id.slice(0, 64)}` : "",
    typeof r.name === "string" ? JSON.stringify(r.name.slice(0, 80)) : "",
  ].filter(Boolean);
  return `${section}[${index}]${parts.length ? ` (${parts.join(", ")})` : ""}`;
}

function check<T extends z.ZodType>(schema: T, raw: unknown, label: string): z.infer<T> {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new RecordError(label, "must be an object");
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new RecordError(label, `${issue.path.map(String).join(".") || "record"}: ${issue.message}`);
}

const SECTION_TYPE: Partial<Record<Section, ChatflowType>> = {
  AgentFlow: "MULTIAGENT",
  AgentFlowV2: "AGENTFLOW",
  AssistantFlow: "ASSISTANT",
  ChatFlow: "CHATFLOW",
};
const ASSISTANT_SECTION_TYPE: Partial<Record<Section, (typeof ASSISTANT_TYPES)[number]>> = {
  AssistantCustom: "CUSTOM",
  AssistantOpenAI: "OPENAI",
  AssistantAzure: "AZURE",
};

function parseJson(s: string): unknown {
  return JSON.parse(s);
}

async function readFlow(section: Section, raw: unknown, label: string, out: RowOut, ledger: Ledger): Promise<void> {
  const f = check(Chatflow, raw, label);
  const type = f.type ?? SECTION_TYPE[section]!;
  ledger.note("flow", f.id, label);
  ledger.flowSaved(f.id, f.name, f.flowData, type, f.apikeyid ?? null);
  out("chat_flow", [
    f.id,
    f.name,
    f.flowData,
    f.deployed,
    f.isPublic,
    f.apikeyid ?? null,
    f.chatbotConfig ?? null,
    f.apiConfig ?? null,
    f.analytic ?? null,
    f.speechToText ?? null,
    f.textToSpeech ?? null,
    f.followUpPrompts ?? null,
    f.category ?? null,
    type,
    f.createdDate,
    f.updatedDate,
  ]);
  // Flowise keeps an MCP server's token in the flow; here only its hash is kept, so MCP clients keep working.
  if (f.mcpServerConfig) {
    const mcp = McpServerConfig.safeParse(parseJson(f.mcpServerConfig));
    if (!mcp.success) throw new RecordError(label, "mcpServerConfig: must be {enabled, token, toolName, description}");
    const { enabled, token, toolName, description } = mcp.data;
    if (token) {
      out("mcp_server", [
        f.id,
        enabled ? 1 : 0,
        await sha256Hex(token),
        `${token.slice(0, 4)}…${token.slice(-4)}`,
        toolName ?? "",
        description ?? "",
        f.createdDate,
        f.updatedDate,
      ]);
    }
  }
}

function readAssistant(section: Section, raw: unknown, label: string, out: RowOut, ledger: Ledger): void {
  const a = check(Assistant, raw, label);
  ledger.note("assistant", a.id, label);
  out("assistant", [
    a.id,
    a.details,
    a.credential ?? null,
    a.iconSrc ?? null,
    a.type ?? ASSISTANT_SECTION_TYPE[section]!,
    a.createdDate,
    a.updatedDate,
  ]);
}

function readTool(raw: unknown, label: string, out: RowOut, ledger: Ledger): void {
  const t = check(Tool, raw, label);
  ledger.note("tool", t.id, label);
  out("tool", [
    t.id,
    t.name,
    t.description ?? null,
    t.color ?? null,
    t.iconSrc ?? null,
    t.schema ?? null,
    t.func ?? null,
    t.createdDate,
    t.updatedDate,
  ]);
}

function readVariable(raw: unknown, label: string, out: RowOut, ledger: Ledger): void {
  const v = check(Variable, raw, label);
  ledger.note("variable", v.id, label);
  ledger.variableName(v.name, label);
  out("variable", [v.id, v.name, v.value ?? "", v.type, v.createdDate, v.updatedDate]);
}

// A store imported while Flowise was upserting it: nothing here continues that work.
const storeStatus = (s: string | null | undefined) => (s === "UPSERTING" ? "SYNC" : (s ?? "EMPTY"));
const loaderStatus = (s: string | null | undefined) => (s === "SYNCING" || s === "UPSERTING" ? "STALE" : (s ?? "SYNC"));

function readStore(raw: unknown, label: string, out: RowOut, ledger: Ledger): void {
  const s = check(DocumentStore, raw, label);
  ledger.note("store", s.id, label);
  let loaders: z.infer<typeof Loader>[] = [];
  if (s.loaders) {
    const list = parseJson(s.loaders);
    if (!Array.isArray(list)) throw new RecordError(label, "loaders: must be a JSON array serialized as a string");
    loaders = list.map((l, i) => check(Loader, l, `${label} loaders[${i}]`));
  }
  out("document_store", [
    s.id,
    s.name,
    s.description ?? null,
    s.whereUsed ?? "[]",
    storeStatus(s.status),
    s.vectorStoreConfig ?? null,
    s.embeddingConfig ?? null,
    s.recordManagerConfig ?? null,
    s.createdDate,
    s.updatedDate,
  ]);
  loaders.forEach((l, i) => {
    const at = `${label} loaders[${i}]`;
    ledger.note("loader", l.id, at);
    ledger.loaderOf(l.id, s.id);
    out("document_store_loader", [
      l.id,
      s.id,
      i + 1,
      l.loaderId,
      l.loaderName ?? l.loaderId,
      JSON.stringify(l.loaderConfig ?? {}),
      l.splitterId ?? null,
      l.splitterName ?? null,
      l.splitterConfig ? JSON.stringify(l.splitterConfig) : null,
      l.totalChunks ?? 0,
      l.totalChars ?? 0,
      loaderStatus(l.status),
      l.status === "SYNCING" ? "Imported while it was being processed: refresh or upsert it again" : (l.error ?? null),
      JSON.stringify(l.files ?? []),
      s.createdDate,
      s.updatedDate,
    ]);
  });
}

function readChunk(raw: unknown, label: string, out: RowOut, ledger: Ledger): void {
  const c = check(Chunk, raw, label);
  ledger.note("chunk", c.id, label);
  ledger.chunkIn(c.storeId, c.docId, label);
  out("document_store_file_chunk", [c.id, c.docId, c.storeId, c.chunkNo, c.pageContent.replaceAll("\u0000", ""), c.metadata]);
}

function readExecution(raw: unknown, label: string, out: RowOut, ledger: Ledger): void {
  const e = check(Execution, raw, label);
  ledger.note("execution", e.id, label);
  ledger.refer("agentflow", e.agentflowId, label);
  out("execution", [
    e.id,
    e.executionData,
    e.state,
    e.agentflowId,
    e.sessionId,
    e.action ?? null,
    e.isPublic,
    e.createdDate,
    e.updatedDate,
    e.stoppedDate,
  ]);
}

function readMessage(raw: unknown, label: string, out: RowOut, ledger: Ledger): void {
  const m = check(Message, raw, label);
  ledger.note("message", m.id, label);
  ledger.refer("flowOrAssistant", m.chatflowid, label);
  ledger.messageOf(m.id, m.chatflowid);
  out("chat_message", [
    m.id,
    m.role,
    m.chatflowid,
    m.content,
    m.sourceDocuments ?? null,
    m.usedTools ?? null,
    m.fileAnnotations ?? null,
    m.agentReasoning ?? null,
    m.fileUploads ?? null,
    m.artifacts ?? null,
    m.action ?? null,
    m.followUpPrompts ?? null,
    m.chatType,
    m.chatId,
    m.memoryType ?? null,
    m.sessionId ?? null,
    m.leadEmail ?? null,
    m.executionId ?? null,
    m.createdDate,
  ]);
}

function readFeedback(raw: unknown, label: string, out: RowOut, ledger: Ledger): void {
  const f = check(Feedback, raw, label);
  ledger.note("feedback", f.id, label);
  ledger.feedbackOn(f.messageId, f.chatflowid, label);
  ledger.refer("flowOrAssistant", f.chatflowid, label);
  out("chat_message_feedback", [f.id, f.chatflowid, f.chatId, f.messageId, f.rating, f.content ?? null, f.createdDate]);
}

/** Checks one record of `section` and hands its rows to `out`; throws RecordError naming it. */
export async function readRecord(section: Section, index: number, raw: unknown, out: RowOut, ledger: Ledger): Promise<void> {
  const label = labelOf(section, index, raw);
  switch (section) {
    case "AgentFlow":
    case "AgentFlowV2":
    case "AssistantFlow":
    case "ChatFlow":
      return readFlow(section, raw, label, out, ledger);
    case "AssistantCustom":
    case "AssistantOpenAI":
    case "AssistantAzure":
      return readAssistant(section, raw, label, out, ledger);
    case "Tool":
      return readTool(raw, label, out, ledger);
    case "Variable":
      return readVariable(raw, label, out, ledger);
    case "DocumentStore":
      return readStore(raw, label, out, ledger);
    case "DocumentStoreFileChunk":
      return readChunk(raw, label, out, ledger);
    case "Execution":
      return readExecution(raw, label, out, ledger);
    case "ChatMessage":
      return readMessage(raw, label, out, ledger);
    case "ChatMessageFeedback":
      return readFeedback(raw, label, out, ledger);
    case "CustomTemplate":
      return;
  }
}
