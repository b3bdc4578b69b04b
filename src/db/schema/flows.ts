// Flows and what they are built from: chatflows and agentflows, tools, assistants, variables,
// a flow's MCP server settings, saved custom templates, and the import's staging table.
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { AssistantType, ChatflowType, McpServerAuthType, McpServerStatus, VariableType } from "../enums";
import { createdDate, updatedDate } from "./columns";

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

// A remote MCP server registered on the Tools page (Flowise's Custom MCP Servers): its address,
// its headers sealed like a credential's values, and the tools it listed when last authorized,
// which the customMcpServerTool node offers to agents.
export const customMcpServer = sqliteTable(
  "custom_mcp_server",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    serverUrl: text("serverUrl").notNull(),
    iconSrc: text("iconSrc"),
    color: text("color"),
    authType: text("authType").$type<McpServerAuthType>().notNull().default("NONE"),
    /** `{headers}`, encrypted with CREDENTIAL_ENCRYPTION_KEY; null when there are none. */
    authConfig: text("authConfig"),
    /** The server's tools/list answer (`{"tools": [...]}`) as JSON text, from the last authorize. */
    tools: text("tools"),
    toolCount: integer("toolCount").notNull().default(0),
    status: text("status").$type<McpServerStatus>().notNull().default("PENDING"),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
  },
  (t) => [index("idx_custom_mcp_server_created").on(t.createdDate)],
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

/**
 * A flow (or tool) the user saved as a template (Flowise's custom_template, without workspaces):
 * `flowData` is the exported graph (a tool's `{iconSrc, schema, func}`), `usecases` a JSON list.
 */
export const customTemplate = sqliteTable(
  "custom_template",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    flowData: text("flowData").notNull(),
    description: text("description"),
    badge: text("badge"),
    framework: text("framework"),
    usecases: text("usecases"),
    type: text("type"),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
  },
  (t) => [index("idx_custom_template_created").on(t.createdDate)],
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
