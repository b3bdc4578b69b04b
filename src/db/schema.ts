import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type {
  AssistantType,
  ChatType,
  ChatflowType,
  DocumentStoreStatus,
  ExecutionState,
  FeedbackRating,
  MessageRole,
  ScheduleInputMode,
  ScheduleTriggerStatus,
  VariableType,
} from "./enums";

// Timestamps are ISO 8601 UTC strings with milliseconds: they sort lexicographically,
// so range filters and ORDER BY work on the text column directly.
const createdDate = () => text("createdDate").notNull();
const updatedDate = () => text("updatedDate").notNull();

export const tool = sqliteTable(
  "tool",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    description: text("description"),
    color: text("color"),
    iconSrc: text("iconSrc"),
    schema: text("schema"),
    func: text("func"),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
  },
  (t) => [index("idx_tool_created").on(t.createdDate)],
);

export const chatFlow = sqliteTable(
  "chat_flow",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    flowData: text("flowData").notNull(),
    deployed: integer("deployed", { mode: "boolean" }).notNull().default(false),
    isPublic: integer("isPublic", { mode: "boolean" }).notNull().default(false),
    apikeyid: text("apikeyid"),
    chatbotConfig: text("chatbotConfig"),
    apiConfig: text("apiConfig"),
    analytic: text("analytic"),
    speechToText: text("speechToText"),
    textToSpeech: text("textToSpeech"),
    followUpPrompts: text("followUpPrompts"),
    category: text("category"),
    type: text("type").$type<ChatflowType>().notNull().default("CHATFLOW"),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
  },
  (t) => [
    index("idx_chat_flow_created").on(t.createdDate),
    index("idx_chat_flow_apikey").on(t.apikeyid),
    index("idx_chat_flow_type").on(t.type, t.createdDate),
  ],
);

export const assistant = sqliteTable(
  "assistant",
  {
    id: text("id").primaryKey(),
    details: text("details").notNull(),
    credential: text("credential"),
    iconSrc: text("iconSrc"),
    type: text("type").$type<AssistantType>().notNull().default("CUSTOM"),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
  },
  (t) => [index("idx_assistant_created").on(t.createdDate)],
);

export const lead = sqliteTable(
  "lead",
  {
    id: text("id").primaryKey(),
    name: text("name"),
    email: text("email"),
    phone: text("phone"),
    chatflowid: text("chatflowid").notNull(),
    chatId: text("chatId").notNull(),
    createdDate: createdDate(),
  },
  (t) => [index("idx_lead_flow_created").on(t.chatflowid, t.createdDate)],
);

export const chatMessage = sqliteTable(
  "chat_message",
  {
    id: text("id").primaryKey(),
    role: text("role").$type<MessageRole>().notNull(),
    chatflowid: text("chatflowid").notNull(),
    content: text("content").notNull(),
    sourceDocuments: text("sourceDocuments"),
    usedTools: text("usedTools"),
    fileAnnotations: text("fileAnnotations"),
    agentReasoning: text("agentReasoning"),
    fileUploads: text("fileUploads"),
    artifacts: text("artifacts"),
    action: text("action"),
    followUpPrompts: text("followUpPrompts"),
    chatType: text("chatType").$type<ChatType>().notNull(),
    chatId: text("chatId").notNull(),
    memoryType: text("memoryType"),
    sessionId: text("sessionId"),
    leadEmail: text("leadEmail"),
    // The agentflow execution this message belongs to (Flowise's chat_message.executionId).
    executionId: text("executionId"),
    createdDate: createdDate(),
  },
  (t) => [
    index("idx_chat_message_flow_created").on(t.chatflowid, t.createdDate),
    index("idx_chat_message_chat").on(t.chatId, t.createdDate),
    index("idx_chat_message_session").on(t.sessionId, t.createdDate),
    index("idx_chat_message_execution").on(t.executionId),
  ],
);

/**
 * One run of an agentflow (Flowise's `execution`): `executionData` is the JSON of the executed
 * nodes so far, rewritten after every node, so a paused or interrupted run is never lost.
 * `updatedDate` doubles as the run's lease: an INPROGRESS row not touched for a while is TIMEOUT
 * (a detached run's is its sign of progress instead: a stalled one is woken, not ended).
 */
export const execution = sqliteTable(
  "execution",
  {
    id: text("id").primaryKey(),
    executionData: text("executionData").notNull().default("[]"),
    state: text("state").$type<ExecutionState>().notNull(),
    agentflowId: text("agentflowId").notNull(),
    sessionId: text("sessionId").notNull(),
    // The pending human-input action (JSON) while STOPPED.
    action: text("action"),
    isPublic: integer("isPublic", { mode: "boolean" }).notNull().default(false),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
    stoppedDate: text("stoppedDate"),
    // Asynchronous runs (issue 20): run by a Workflow instance of the same id; the answer a
    // synchronous prediction would have given (JSON) once it ended, or why it failed.
    detached: integer("detached", { mode: "boolean" }).notNull().default(false),
    result: text("result"),
    error: text("error"),
    // When a stalled detached run was last woken (services/detached-wake.ts): one wake a minute,
    // claimed by a conditional UPDATE so two sweeps wake it once.
    wokenAt: text("wokenAt"),
  },
  (t) => [
    index("idx_execution_flow_session").on(t.agentflowId, t.sessionId, t.createdDate),
    index("idx_execution_updated").on(t.updatedDate),
    index("idx_execution_state_updated").on(t.state, t.updatedDate),
  ],
);

/**
 * A Responses API answer kept for `GET /openai/responses/{id}` and `previous_response_id` (which
 * continues its chat): `response` is the JSON answered, the other columns what a lookup needs.
 */
export const openaiResponse = sqliteTable(
  "openai_response",
  {
    id: text("id").primaryKey(),
    chatflowid: text("chatflowid").notNull(),
    chatId: text("chatId").notNull(),
    sessionId: text("sessionId").notNull(),
    executionId: text("executionId"),
    response: text("response").notNull(),
    createdDate: createdDate(),
  },
  (t) => [index("idx_openai_response_flow").on(t.chatflowid)],
);

export const chatMessageFeedback = sqliteTable(
  "chat_message_feedback",
  {
    id: text("id").primaryKey(),
    chatflowid: text("chatflowid").notNull(),
    chatId: text("chatId").notNull(),
    messageId: text("messageId").notNull(),
    rating: text("rating").$type<FeedbackRating>().notNull(),
    content: text("content"),
    createdDate: createdDate(),
  },
  (t) => [uniqueIndex("uq_feedback_message").on(t.messageId), index("idx_feedback_flow_created").on(t.chatflowid, t.createdDate)],
);

export const documentStore = sqliteTable(
  "document_store",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    description: text("description"),
    whereUsed: text("whereUsed").notNull().default("[]"),
    status: text("status").$type<DocumentStoreStatus>().notNull().default("EMPTY"),
    vectorStoreConfig: text("vectorStoreConfig"),
    embeddingConfig: text("embeddingConfig"),
    recordManagerConfig: text("recordManagerConfig"),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
  },
  (t) => [index("idx_document_store_created").on(t.createdDate)],
);

/**
 * A document store's loaders (Flowise's IDocumentStoreLoader), one row each so that concurrent
 * upserts and chunk edits each change only their own row; the store's `loaders` JSON string is
 * built from these rows. `position` keeps the order they were added in. Work on a loader holds a
 * lease: `leaseId` names the upsert doing it, `leaseUntil` (ms since the epoch) is when it runs out
 * unless the worker renews it — a lease that ran out with the work unfinished means that worker
 * died, and the loader reads STALE. `files` and the configs are JSON text, as Flowise shapes them.
 */
export const documentStoreLoader = sqliteTable(
  "document_store_loader",
  {
    id: text("id").primaryKey(),
    storeId: text("storeId").notNull(),
    position: integer("position").notNull(),
    loaderId: text("loaderId").notNull(),
    loaderName: text("loaderName").notNull(),
    loaderConfig: text("loaderConfig").notNull().default("{}"),
    splitterId: text("splitterId"),
    splitterName: text("splitterName"),
    splitterConfig: text("splitterConfig"),
    totalChunks: integer("totalChunks").notNull().default(0),
    totalChars: integer("totalChars").notNull().default(0),
    status: text("status").$type<DocumentStoreStatus>().notNull(),
    error: text("error"),
    files: text("files").notNull().default("[]"),
    leaseId: text("leaseId"),
    leaseUntil: integer("leaseUntil"),
    /**
     * A streamed upsert's position (JSON): how far it read, the run it belongs to and where the next
     * window starts; null when no streamed run is under way or left unfinished.
     */
    progress: text("progress"),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
  },
  (t) => [index("idx_document_store_loader_store").on(t.storeId, t.position)],
);

export const documentStoreFileChunk = sqliteTable(
  "document_store_file_chunk",
  {
    id: text("id").primaryKey(),
    docId: text("docId").notNull(),
    storeId: text("storeId").notNull(),
    chunkNo: integer("chunkNo").notNull(),
    pageContent: text("pageContent").notNull(),
    metadata: text("metadata").notNull().default("{}"),
  },
  (t) => [index("idx_chunk_store_doc_no").on(t.storeId, t.docId, t.chunkNo)],
);

/**
 * The documents a vector store holds, per provider and namespace (a document store's id unless
 * configured): the text stays in D1 for every provider, so Vectorize metadata carries only ids.
 * `id` is the vector id (the record manager's content hash, or a fresh UUID without one).
 */
export const vectorDocument = sqliteTable(
  "vector_document",
  {
    provider: text("provider").notNull(),
    namespace: text("namespace").notNull(),
    id: text("id").notNull(),
    docId: text("docId"),
    pageContent: text("pageContent").notNull(),
    metadata: text("metadata").notNull().default("{}"),
    // The chunk (of loader docId) this vector was last indexed from: a hint for matching query hits
    // to chunks without comparing texts (checked against the text, which wins when they differ).
    chunkNo: integer("chunkNo"),
  },
  (t) => [primaryKey({ columns: [t.provider, t.namespace, t.id] }), index("idx_vector_document_doc").on(t.provider, t.namespace, t.docId)],
);

/**
 * The local vector store's embeddings, apart from the text so a query scans only compact rows:
 * each vector normalised, quantised to int8 (`scale` restores it) and base64-encoded.
 */
export const localEmbedding = sqliteTable(
  "local_embedding",
  {
    namespace: text("namespace").notNull(),
    id: text("id").notNull(),
    dims: integer("dims").notNull(),
    scale: real("scale").notNull(),
    vector: text("vector").notNull(),
  },
  (t) => [primaryKey({ columns: [t.namespace, t.id] })],
);

/**
 * A random token per local vector namespace, replaced by every write to its vectors (in the same
 * batch), so an isolate can tell whether the vectors it decoded earlier are still current.
 */
export const localEmbeddingVersion = sqliteTable("local_embedding_version", {
  namespace: text("namespace").primaryKey(),
  version: text("version").notNull(),
});

/**
 * The record manager (LangChain indexing): one row per indexed chunk hash. `groupId` is the
 * chunk's source (sourceIdKey), `docId` its loader; `updatedAt` is a millisecond clock.
 */
export const recordManager = sqliteTable(
  "record_manager",
  {
    namespace: text("namespace").notNull(),
    key: text("key").notNull(),
    groupId: text("groupId"),
    docId: text("docId"),
    updatedAt: real("updatedAt").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.namespace, t.key] }),
    index("idx_record_manager_time").on(t.namespace, t.updatedAt),
    index("idx_record_manager_group").on(t.namespace, t.groupId),
    index("idx_record_manager_doc").on(t.namespace, t.docId),
  ],
);

export const variable = sqliteTable(
  "variable",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    value: text("value"),
    type: text("type").$type<VariableType>().notNull().default("static"),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
  },
  (t) => [uniqueIndex("uq_variable_name").on(t.name)],
);

export const apiKey = sqliteTable(
  "apikey",
  {
    id: text("id").primaryKey(),
    keyName: text("keyName").notNull(),
    // SHA-256 of the key, hex: how a bearer token finds its key.
    keyHash: text("keyHash").notNull(),
    // "abcd…wxyz": enough for a person to recognise the key in a list.
    keyMask: text("keyMask").notNull(),
    // The key sealed (AES-GCM) with CREDENTIAL_ENCRYPTION_KEY, for the studio's eye icon: revealed to
    // a signed-in person only (middleware/studio-shapes.ts). NULL for keys made before it was kept,
    // or while that secret was unset: those stay masked.
    keySealed: text("keySealed"),
    // JSON arrays: Flowise permission names, and the chatflow ids the key is limited to. NULL = all.
    permissions: text("permissions"),
    chatflows: text("chatflows"),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
  },
  (t) => [uniqueIndex("uq_apikey_hash").on(t.keyHash)],
);

/**
 * A chatflow served as an MCP server (POST /mcp/{chatflowId}; Flowise's chat_flow.mcpServerConfig,
 * kept apart so the token's hash never travels with a flow's record). One row per chatflow;
 * DELETE /mcp-server only disables it.
 */
export const mcpServer = sqliteTable(
  "mcp_server",
  {
    chatflowId: text("chatflowId").primaryKey(),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(false),
    // SHA-256 of the bearer token, hex: the token is shown by POST and refresh only.
    tokenHash: text("tokenHash").notNull(),
    // "abcd…wxyz", for GET.
    tokenMask: text("tokenMask").notNull(),
    toolName: text("toolName").notNull().default(""),
    description: text("description").notNull().default(""),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
  },
  (t) => [index("idx_mcp_server_enabled").on(t.enabled)],
);

export const credential = sqliteTable(
  "credential",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    credentialName: text("credentialName").notNull(),
    // AES-GCM ciphertext of the JSON plainDataObj: base64(iv || ciphertext).
    encryptedData: text("encryptedData").notNull(),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
  },
  (t) => [index("idx_credential_name").on(t.credentialName)],
);

export const upsertHistory = sqliteTable(
  "upsert_history",
  {
    id: text("id").primaryKey(),
    chatflowid: text("chatflowid").notNull(),
    result: text("result").notNull(),
    flowData: text("flowData").notNull(),
    date: text("date").notNull(),
  },
  (t) => [index("idx_upsert_history_flow_date").on(t.chatflowid, t.date)],
);

/**
 * An import's rows while its file is read (POST /export-import/import): each row of this table is
 * one part of at most ~1.8 MB of JSON rows for one table, moved into that table by the import's one
 * final batch (all or nothing) and then deleted. Parts of an import that died are swept after a day.
 */
export const importStage = sqliteTable(
  "import_stage",
  {
    importId: text("importId").notNull(),
    tableName: text("tableName").notNull(),
    seq: integer("seq").notNull(),
    rows: text("rows").notNull(),
    createdDate: createdDate(),
  },
  (t) => [primaryKey({ columns: [t.importId, t.tableName, t.seq] }), index("idx_import_stage_created").on(t.createdDate)],
);

/**
 * A webhook-triggered agentflow's shared secret (Flowise's chat_flow.webhookSecret, kept apart so
 * it never travels with a flow's record): AES-GCM ciphertext, base64(iv || ciphertext), under
 * CREDENTIAL_ENCRYPTION_KEY. Shown once, by POST /chatflows/{id}/webhook-secret.
 */
export const webhookSecret = sqliteTable("webhook_secret", {
  chatflowId: text("chatflowId").primaryKey(),
  encryptedSecret: text("encryptedSecret").notNull(),
  createdDate: createdDate(),
});

/**
 * A scheduled agentflow's schedule (Flowise's schedule_record), kept in step with its Start node
 * when the flow is saved. `nextRunAt` is the next slot (ISO, UTC), NULL when there is none (ended,
 * or an invalid cron): the cron tick finds the due ones on (enabled, nextRunAt).
 */
export const scheduleRecord = sqliteTable(
  "schedule_record",
  {
    id: text("id").primaryKey(),
    triggerType: text("triggerType").notNull().default("AGENTFLOW"),
    targetId: text("targetId").notNull(),
    nodeId: text("nodeId"),
    cronExpression: text("cronExpression").notNull(),
    timezone: text("timezone").notNull().default("UTC"),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    scheduleInputMode: text("scheduleInputMode").$type<ScheduleInputMode>().notNull(),
    defaultInput: text("defaultInput"),
    defaultForm: text("defaultForm"),
    lastRunAt: text("lastRunAt"),
    nextRunAt: text("nextRunAt"),
    endDate: text("endDate"),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
  },
  (t) => [
    uniqueIndex("uq_schedule_record_target").on(t.targetId, t.triggerType),
    index("idx_schedule_record_due").on(t.enabled, t.nextRunAt),
  ],
);

/**
 * One slot of a schedule (Flowise's schedule_trigger_log). The unique (schedule, slot) pair is the
 * claim: the tick that inserts it runs the slot, any other tick for the same slot inserts nothing.
 */
export const scheduleTriggerLog = sqliteTable(
  "schedule_trigger_log",
  {
    id: text("id").primaryKey(),
    scheduleRecordId: text("scheduleRecordId").notNull(),
    triggerType: text("triggerType").notNull().default("AGENTFLOW"),
    targetId: text("targetId").notNull(),
    executionId: text("executionId"),
    status: text("status").$type<ScheduleTriggerStatus>().notNull(),
    error: text("error"),
    elapsedTimeMs: integer("elapsedTimeMs"),
    scheduledAt: text("scheduledAt").notNull(),
    createdDate: createdDate(),
  },
  (t) => [
    uniqueIndex("uq_schedule_trigger_log_slot").on(t.scheduleRecordId, t.scheduledAt),
    index("idx_schedule_trigger_log_target").on(t.targetId, t.scheduledAt),
    index("idx_schedule_trigger_log_execution").on(t.executionId),
  ],
);

/**
 * A person who signs in to the studio (the web UI at /). `email` is stored lower-cased (unique);
 * `passwordHash` is lib/password.ts's "pbkdf2-sha256$<iterations>$<salt>$<hash>", never the password.
 */
export const account = sqliteTable(
  "account",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    passwordHash: text("passwordHash").notNull(),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
  },
  (t) => [uniqueIndex("uq_account_email").on(t.email)],
);

/**
 * A signed-in session. `id` is the SHA-256 (hex) of the cookie's token: the token itself is never
 * stored. Requests pass until `accessUntil`; then POST /auth/refreshToken moves both times on,
 * until `expiresAt` (the idle limit) has passed. Deleting the row signs the session out at once.
 */
export const accountSession = sqliteTable(
  "account_session",
  {
    id: text("id").primaryKey(),
    accountId: text("accountId").notNull(),
    accessUntil: text("accessUntil").notNull(),
    expiresAt: text("expiresAt").notNull(),
    createdDate: createdDate(),
  },
  (t) => [index("idx_account_session_account").on(t.accountId)],
);
