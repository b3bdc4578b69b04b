// The tables an import writes, each with its columns in the order a staged row carries them (a
// staged row is a JSON array of these values; import_stage holds them until the final batch).
export const TABLES = {
  chat_flow: ["id", "name", "flowData", "deployed", "isPublic", "apikeyid", "chatbotConfig", "apiConfig", "analytic", "speechToText", "textToSpeech", "followUpPrompts", "category", "type", "createdDate", "updatedDate"],
  mcp_server: ["chatflowId", "enabled", "tokenHash", "tokenMask", "toolName", "description", "createdDate", "updatedDate"],
  assistant: ["id", "details", "credential", "iconSrc", "type", "createdDate", "updatedDate"],
  tool: ["id", "name", "description", "color", "iconSrc", "schema", "func", "createdDate", "updatedDate"],
  variable: ["id", "name", "value", "type", "createdDate", "updatedDate"],
  document_store: ["id", "name", "description", "whereUsed", "status", "vectorStoreConfig", "embeddingConfig", "recordManagerConfig", "createdDate", "updatedDate"],
  document_store_loader: ["id", "storeId", "position", "loaderId", "loaderName", "loaderConfig", "splitterId", "splitterName", "splitterConfig", "totalChunks", "totalChars", "status", "error", "files", "createdDate", "updatedDate"],
  document_store_file_chunk: ["id", "docId", "storeId", "chunkNo", "pageContent", "metadata"],
  execution: ["id", "executionData", "state", "agentflowId", "sessionId", "action", "isPublic", "createdDate", "updatedDate", "stoppedDate"],
  chat_message: ["id", "role", "chatflowid", "content", "sourceDocuments", "usedTools", "fileAnnotations", "agentReasoning", "fileUploads", "artifacts", "action", "followUpPrompts", "chatType", "chatId", "memoryType", "sessionId", "leadEmail", "executionId", "createdDate"],
  chat_message_feedback: ["id", "chatflowid", "chatId", "messageId", "rating", "content", "createdDate"],
} as const;

export type TableName = keyof typeof TABLES;

/** The order the final batch writes them in (records before the ones that point at them). */
export const TABLE_ORDER = Object.keys(TABLES) as TableName[];
