// Closed value sets shared by the table definitions and the request/response schemas.
export const CHATFLOW_TYPES = ["CHATFLOW", "AGENTFLOW", "MULTIAGENT", "ASSISTANT"] as const;
export const ASSISTANT_TYPES = ["CUSTOM", "OPENAI", "AZURE"] as const;
export const MESSAGE_ROLES = ["userMessage", "apiMessage"] as const;
export const CHAT_TYPES = ["INTERNAL", "EXTERNAL", "MCP", "OPENAI", "WEBHOOK", "SCHEDULED"] as const;
// What a chat-type filter may name: Flowise's UI also asks for EVALUATION (its evaluation runs,
// which edgeflow never stores), so such a filter is valid and matches no message.
export const CHAT_TYPE_FILTERS = [...CHAT_TYPES, "EVALUATION"] as const;
export const FEEDBACK_RATINGS = ["THUMBS_UP", "THUMBS_DOWN"] as const;
export const VARIABLE_TYPES = ["static", "runtime"] as const;
export const EXECUTION_STATES = ["INPROGRESS", "FINISHED", "ERROR", "TERMINATED", "TIMEOUT", "STOPPED"] as const;
// A scheduled slot's trigger-log row (Flowise's ScheduleTriggerStatus).
export const SCHEDULE_TRIGGER_STATUSES = ["QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "SKIPPED"] as const;
export const SCHEDULE_INPUT_MODES = ["text", "form", "none"] as const;
// A custom MCP server's state (Flowise's CustomMcpServerStatus / CustomMcpServerAuthType).
export const MCP_SERVER_STATUSES = ["PENDING", "AUTHORIZED", "ERROR"] as const;
export const MCP_SERVER_AUTH_TYPES = ["NONE", "CUSTOM_HEADERS"] as const;
export const DOCUMENT_STORE_STATUSES = ["EMPTY", "SYNC", "SYNCING", "STALE", "NEW", "UPSERTING", "UPSERTED"] as const;

export type ChatflowType = (typeof CHATFLOW_TYPES)[number];
export type AssistantType = (typeof ASSISTANT_TYPES)[number];
export type MessageRole = (typeof MESSAGE_ROLES)[number];
export type ChatType = (typeof CHAT_TYPES)[number];
export type ChatTypeFilter = (typeof CHAT_TYPE_FILTERS)[number];
export type FeedbackRating = (typeof FEEDBACK_RATINGS)[number];
export type VariableType = (typeof VARIABLE_TYPES)[number];
export type ExecutionState = (typeof EXECUTION_STATES)[number];
export type ScheduleTriggerStatus = (typeof SCHEDULE_TRIGGER_STATUSES)[number];
export type ScheduleInputMode = (typeof SCHEDULE_INPUT_MODES)[number];
export type McpServerStatus = (typeof MCP_SERVER_STATUSES)[number];
export type McpServerAuthType = (typeof MCP_SERVER_AUTH_TYPES)[number];
export type DocumentStoreStatus = (typeof DOCUMENT_STORE_STATUSES)[number];
