// POST /export-import/export: this deployment's records as Flowise 3.1.4's export file (the same
// sections and record fields, so Flowise's own import takes it, and so does ours). As Flowise does:
// variables' values are written empty, credentials never. Written as a stream, page by page, so a
// large deployment is never held in memory whole.
import { z } from "@hono/zod-openapi";
import type { Db } from "../../env";
import { badRequest } from "../../errors";
import { entryOf, type LoaderRow } from "../document-store/loader-rows";
import type { Deps } from "../deps";
import { present } from "../templates/custom";

/** Flowise's flags (convertExportInput): each true exports its records. */
export const EXPORT_FLAGS = [
  "agentflow",
  "agentflowv2",
  "assistantCustom",
  "assistantOpenAI",
  "assistantAzure",
  "chatflow",
  "chat_message",
  "chat_feedback",
  "custom_template",
  "document_store",
  "execution",
  "tool",
  "variable",
] as const;
export type ExportFlags = Partial<Record<(typeof EXPORT_FLAGS)[number], boolean>>;

const FlagsBody = z.object(Object.fromEntries(EXPORT_FLAGS.map((f) => [f, z.boolean().optional()]))).passthrough();

/** The request's flags; a flag that is not a boolean is a 400 naming it (Flowise answers 500). */
export function exportFlags(body: unknown): ExportFlags {
  if (!body || typeof body !== "object" || Array.isArray(body))
    throw badRequest("The export request's body must be a JSON object of Flowise's flags ({chatflow: true, …})");
  const parsed = FlagsBody.safeParse(body);
  if (!parsed.success)
    throw badRequest(`Invalid ${String(parsed.error.issues[0].path[0])} property in the export request: must be true or false`);
  return parsed.data as ExportFlags;
}

type Row = Record<string, unknown>;
const client = (db: Db) => (db as unknown as { $client: D1Database }).$client;

/** Rows of `sql` (which ends `WHERE … AND id > ? ORDER BY id LIMIT ?`), page by page by id. */
async function* pages(db: Db, sql: string, params: unknown[], pageSize: number): AsyncGenerator<Row[]> {
  let after = "";
  for (;;) {
    const { results } = await client(db)
      .prepare(sql)
      .bind(...params, after, pageSize)
      .all<Row>();
    if (!results.length) return;
    yield results;
    if (results.length < pageSize) return;
    after = String(results[results.length - 1].id);
  }
}

const bool = (v: unknown) => v === 1 || v === true;

const flowRecord = (r: Row) => {
  const { mcpEnabled, mcpToolName, mcpDescription, ...flow } = r;
  return {
    ...flow,
    deployed: bool(flow.deployed),
    isPublic: bool(flow.isPublic),
    // The MCP token is stored hashed here, so it cannot be exported: Flowise's config without it.
    ...(mcpEnabled !== null && mcpEnabled !== undefined
      ? { mcpServerConfig: JSON.stringify({ enabled: bool(mcpEnabled), token: "", toolName: mcpToolName, description: mcpDescription }) }
      : {}),
  };
};

const FLOW_SQL =
  `SELECT f.id, f.name, f.flowData, f.deployed, f.isPublic, f.apikeyid, f.chatbotConfig, ` +
  `f.apiConfig, f.analytic, f.speechToText, f.textToSpeech,
  f.followUpPrompts, f.category, f.type, f.createdDate, f.updatedDate, m.enabled AS mcpEnabled, m.toolName AS ` +
  `mcpToolName, m.description AS mcpDescription
  FROM chat_flow f LEFT JOIN mcp_server m ON m.chatflowId = f.id WHERE f.type = ? AND f.id > ? ORDER BY f.id LIMIT ?`;

interface SectionSource {
  section: string;
  flag: (typeof EXPORT_FLAGS)[number];
  read(db: Db): AsyncGenerator<Row[]>;
}

const flows = (type: string) => (db: Db) => mapPages(pages(db, FLOW_SQL, [type], 20), flowRecord);
// Flowise's assistant.credential is NOT NULL; for a custom assistant it is only a client-made UUID.
const assistants = (type: string) => (db: Db) =>
  mapPages(
    pages(
      db,
      "SELECT id, details, credential, iconSrc, type, createdDate, updatedDate FROM assistant WHERE type = ? AND " +
        "id > ? ORDER BY id LIMIT ?",
      [type],
      100,
    ),
    (r) => (r.credential === null && r.type === "CUSTOM" ? { ...r, credential: crypto.randomUUID() } : r),
  );

async function* mapPages(source: AsyncGenerator<Row[]>, map: (r: Row) => Row): AsyncGenerator<Row[]> {
  for await (const page of source) yield page.map(map);
}

async function* storesWithLoaders(db: Db): AsyncGenerator<Row[]> {
  for await (const page of pages(db, "SELECT * FROM document_store WHERE id > ? ORDER BY id LIMIT ?", [], 50)) {
    const { results } = await client(db)
      .prepare("SELECT * FROM document_store_loader WHERE storeId IN (SELECT value FROM json_each(?)) ORDER BY position, id")
      .bind(JSON.stringify(page.map((s) => s.id)))
      .all<LoaderRow>();
    const now = Date.now();
    yield page.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      loaders: JSON.stringify(results.filter((l) => l.storeId === s.id).map((l) => entryOf(l, now))),
      whereUsed: s.whereUsed,
      createdDate: s.createdDate,
      updatedDate: s.updatedDate,
      status: s.status,
      vectorStoreConfig: s.vectorStoreConfig,
      embeddingConfig: s.embeddingConfig,
      recordManagerConfig: s.recordManagerConfig,
    }));
  }
}

/** Flowise's sections in its order, each with the flag that fills it. */
const SOURCES: SectionSource[] = [
  { section: "AgentFlow", flag: "agentflow", read: flows("MULTIAGENT") },
  { section: "AgentFlowV2", flag: "agentflowv2", read: flows("AGENTFLOW") },
  { section: "AssistantCustom", flag: "assistantCustom", read: assistants("CUSTOM") },
  { section: "AssistantFlow", flag: "assistantCustom", read: flows("ASSISTANT") },
  { section: "AssistantOpenAI", flag: "assistantOpenAI", read: assistants("OPENAI") },
  { section: "AssistantAzure", flag: "assistantAzure", read: assistants("AZURE") },
  { section: "ChatFlow", flag: "chatflow", read: flows("CHATFLOW") },
  {
    section: "ChatMessage",
    flag: "chat_message",
    read: (db) =>
      pages(
        db,
        `SELECT id, role, chatflowid, executionId, content, sourceDocuments, usedTools, fileAnnotations, ` +
          `agentReasoning, fileUploads, artifacts, action,
      chatType, chatId, memoryType, sessionId, createdDate, leadEmail, followUpPrompts FROM chat_message WHERE id > ? ORDER BY id LIMIT ?`,
        [],
        200,
      ),
  },
  {
    section: "ChatMessageFeedback",
    flag: "chat_feedback",
    read: (db) =>
      pages(
        db,
        "SELECT id, chatflowid, chatId, messageId, rating, content, createdDate FROM chat_message_feedback WHERE " +
          "id > ? ORDER BY id LIMIT ?",
        [],
        500,
      ),
  },
  // As GET /marketplaces/custom answers them, which is what Flowise's export writes too.
  {
    section: "CustomTemplate",
    flag: "custom_template",
    read: (db) =>
      mapPages(
        pages(
          db,
          "SELECT id, name, flowData, description, badge, framework, usecases, type, createdDate, updatedDate FROM custom_template " +
            "WHERE id > ? ORDER BY id LIMIT ?",
          [],
          50,
        ),
        (r) => present(r as Parameters<typeof present>[0]),
      ),
  },
  { section: "DocumentStore", flag: "document_store", read: storesWithLoaders },
  {
    section: "DocumentStoreFileChunk",
    flag: "document_store",
    read: (db) =>
      pages(
        db,
        "SELECT id, docId, storeId, chunkNo, pageContent, metadata FROM document_store_file_chunk WHERE id > ? ORDER BY id LIMIT ?",
        [],
        200,
      ),
  },
  {
    section: "Execution",
    flag: "execution",
    read: (db) =>
      mapPages(
        pages(
          db,
          "SELECT id, executionData, state, agentflowId, sessionId, action, isPublic, createdDate, updatedDate, " +
            "stoppedDate FROM execution WHERE id > ? ORDER BY id LIMIT ?",
          [],
          20,
        ),
        (r) => ({ ...r, isPublic: bool(r.isPublic) }),
      ),
  },
  // Flowise's tool.description and tool.color are NOT NULL.
  {
    section: "Tool",
    flag: "tool",
    read: (db) =>
      mapPages(
        pages(
          db,
          "SELECT id, name, description, color, iconSrc, schema, func, createdDate, updatedDate FROM tool WHERE id > ? ORDER BY id LIMIT ?",
          [],
          200,
        ),
        (r) => ({ ...r, description: r.description ?? "", color: r.color ?? "" }),
      ),
  },
  // Values are never exported (Flowise writes them empty too): they may be secrets.
  {
    section: "Variable",
    flag: "variable",
    read: (db) =>
      mapPages(
        pages(db, "SELECT id, name, type, createdDate, updatedDate FROM variable WHERE id > ? ORDER BY id LIMIT ?", [], 500),
        (r) => ({ id: r.id, name: r.name, value: "", type: r.type, createdDate: r.createdDate, updatedDate: r.updatedDate }),
      ),
  },
];

/** The export file as a stream of JSON text: `{"FileDefaultName": "ExportData.json", "AgentFlow": [...], …}`. */
export function exportFile({ db }: Deps<"db">, flags: ExportFlags): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  async function* text(): AsyncGenerator<string> {
    yield '{"FileDefaultName":"ExportData.json"';
    for (const source of SOURCES) {
      yield `,${JSON.stringify(source.section)}:[`;
      if (flags[source.flag] === true) {
        let first = true;
        for await (const page of source.read(db)) {
          yield (first ? "" : ",") + page.map((r) => JSON.stringify(r)).join(",");
          first = false;
        }
      }
      yield "]";
    }
    yield "}";
  }
  const parts = text();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await parts.next();
        if (done) controller.close();
        else controller.enqueue(encoder.encode(value));
      } catch (err) {
        console.error(`export failed while streaming: ${String(err)}`);
        controller.error(err);
      }
    },
    async cancel() {
      await parts.return(undefined);
    },
  });
}
