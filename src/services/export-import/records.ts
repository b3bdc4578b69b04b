// Flowise 3.1.4's export file, section by section: each record checked (record-schemas.ts: the
// create endpoints' rules, with Flowise's own field shapes) and turned into the rows it becomes
// here. References between records are noted in the ledger, which checks them once the whole file
// was read.
import type { z } from "@hono/zod-openapi";
import type { ASSISTANT_TYPES, ChatflowType } from "../../db/enums";
import type { Ledger } from "./ledger";
import { readFlow } from "./flow-records";
import {
  Assistant,
  Chunk,
  CustomTemplate,
  DocumentStore,
  Execution,
  Feedback,
  Loader,
  Message,
  RecordError,
  type RowOut,
  Tool,
  Variable,
  check,
} from "./record-schemas";

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

/** "ChatFlow[3] (id …, "name")": how a message names a record. */
export function labelOf(section: string, index: number, raw: unknown): string {
  const r = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
  const parts = [
    typeof r.id === "string" ? `id ${r.id.slice(0, 64)}` : "",
    typeof r.name === "string" ? JSON.stringify(r.name.slice(0, 80)) : "",
  ].filter(Boolean);
  return `${section}[${index}]${parts.length ? ` (${parts.join(", ")})` : ""}`;
}

/** The type a flow of each section has when its record names none. */
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
    const list: unknown = JSON.parse(s.loaders);
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

function readTemplate(raw: unknown, label: string, out: RowOut, ledger: Ledger): void {
  const t = check(CustomTemplate, raw, label);
  ledger.note("template", t.id, label);
  // A tool template's parts are its flowData here (as Flowise's import rebuilds it); older files carry flowData itself.
  const parts = t.type === "Tool" && [t.iconSrc, t.schema, t.func].some((v) => v !== undefined);
  const flowData = parts ? JSON.stringify({ iconSrc: t.iconSrc ?? null, schema: t.schema ?? null, func: t.func ?? null }) : t.flowData;
  if (!flowData)
    throw new RecordError(label, t.type === "Tool" ? "a tool template needs iconSrc, schema and func (or flowData)" : "flowData: required");
  out("custom_template", [
    t.id,
    t.name,
    flowData,
    t.description ?? null,
    t.badge ?? null,
    t.framework ?? null,
    t.usecases,
    t.type || null,
    t.createdDate,
    t.updatedDate,
  ]);
}

/** Checks one record of `section` and hands its rows to `out`; throws RecordError naming it. */
export async function readRecord(section: Section, index: number, raw: unknown, out: RowOut, ledger: Ledger): Promise<void> {
  const label = labelOf(section, index, raw);
  switch (section) {
    case "AgentFlow":
    case "AgentFlowV2":
    case "AssistantFlow":
    case "ChatFlow":
      return readFlow(SECTION_TYPE[section]!, raw, label, out, ledger);
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
      return readTemplate(raw, label, out, ledger);
  }
}
