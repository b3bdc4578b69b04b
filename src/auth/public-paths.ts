// Paths a chat widget on any web page may call. They answer CORS for every origin; whether a
// request is allowed is decided by the handler (public chatflow, allowed origins), and a refusal
// carries CORS headers so the widget can read it.
const WIDGET_PATHS = [
  /^\/api\/v1\/(ping|version|openapi\.json|docs)\/?$/,
  /^\/api\/v1\/prediction\/[^/]+\/?$/,
  /^\/api\/v1\/public-chatbotConfig\/[^/]+\/?$/,
  /^\/api\/v1\/chatflows-streaming\/[^/]+\/?$/,
  /^\/api\/v1\/leads\/?$/,
  /^\/api\/v1\/feedback(\/[^/]+)?\/?$/,
  /^\/api\/v1\/chatmessage\/abort\/[^/]+\/[^/]+\/?$/,
  /^\/api\/v1\/text-to-speech\/(generate|abort)\/?$/,
  // A chat's files: the widget attaches files and shows the stored ones (routes/chat-files.ts).
  /^\/api\/v1\/attachments\/[^/]+\/[^/]+\/?$/,
  /^\/api\/v1\/get-upload-file\/?$/,
];

export const isWidgetPath = (path: string): boolean => WIDGET_PATHS.some((re) => re.test(path));

// The MCP endpoints (POST /mcp, POST /mcp/{chatflowId}): browsers reach them only from the origins
// MCP_CORS_ORIGINS lists (the MCP spec's rule against DNS rebinding); desktop clients send no Origin.
const MCP_PATH = /^\/api\/v1\/mcp(\/[^/]+)?\/?$/;

export const isMcpPath = (path: string): boolean => MCP_PATH.test(path);

/** Whether a browser origin may call the MCP endpoints: MCP_CORS_ORIGINS lists it, or says `*`. */
export const mcpOriginAllowed = (origin: string, allowed: string[]): boolean => allowed.includes("*") || allowed.includes(origin);

// Webhooks (ANY /webhook/{id}): no bearer; the flow's secret is the credential.
const WEBHOOK_PATH = /^\/api\/v1\/webhook\/[^/]+\/?$/;

export const isWebhookPath = (path: string): boolean => WEBHOOK_PATH.test(path);
