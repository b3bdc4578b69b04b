import type { Db } from "./db";

// Db is defined beside the client (db/index.ts, which imports nothing of ours); kept here for the
// many modules that import it with Env.
export type { Db };

/**
 * The worker's environment: the bindings and vars wrangler.toml declares, as `wrangler types`
 * generates them (worker-configuration.d.ts, `npm run cf-typegen`; AI and VECTORIZE are optional
 * because the local environment does not declare them), plus what wrangler.toml does not list:
 * secrets (`wrangler secret put`, .dev.vars) and optional vars.
 */
export interface Env extends CloudflareBindings, OptionalConfig {}

/**
 * The vars providers read (src/providers/types.ts ProviderEnv; services/runtime hands exactly these
 * to the engine): the OpenAI default key and base URL, the native chat APIs', the search and paper
 * services', GitHub's and Pinecone's base URLs (tests point them at loopback stand-ins), and what the
 * outbound policy's endpoint rule reads. One list, so a new one is added in one place.
 */
export const PROVIDER_VARS = [
  "ENVIRONMENT",
  "OUTBOUND_ALLOW",
  "OPENAI_BASE_URL",
  "OPENAI_API_KEY",
  "ANTHROPIC_BASE_URL",
  "GOOGLE_GENERATIVE_AI_BASE_URL",
  "HUGGINGFACE_BASE_URL",
  "REPLICATE_BASE_URL",
  // AWS Bedrock Runtime (providers/aws/nodes.ts): awsChatBedrock and AWSBedrockEmbeddings; Cohere's Chat API v2 (chatCohere).
  "AWS_BEDROCK_BASE_URL",
  // Other AWS services' base URLs (providers/aws/client.ts AWS_SERVICES): else https://<service>.<region>.amazonaws.com.
  "AWS_BEDROCK_AGENT_BASE_URL",
  "AWS_SNS_BASE_URL",
  "AWS_DYNAMODB_BASE_URL",
  "AWS_S3_BASE_URL",
  "AWS_KENDRA_BASE_URL",
  "COHERE_CHAT_BASE_URL",
  // Alibaba DashScope (providers/chat/tongyi.ts): chatAlibabaTongyi, else https://dashscope.aliyuncs.com.
  "DASHSCOPE_BASE_URL",
  // Baidu Qianfan (providers/chat/qianfan.ts): chatBaiduWenxin, baiduQianfanEmbeddings; else https://aip.baidubce.com.
  "BAIDU_QIANFAN_BASE_URL",
  // Momento's HTTP API (providers/memory/momento.ts): momentoCache, else https://api.<the key's cache endpoint>.
  "MOMENTO_BASE_URL",
  // Google Vertex AI (providers/google/vertex.ts): the aiplatform host, else https://<region>-aiplatform.googleapis.com.
  "GOOGLE_VERTEX_BASE_URL",
  // IBM Cloud IAM (providers/ibm/iam.ts): the token endpoint's host, else https://iam.cloud.ibm.com.
  "IBM_IAM_BASE_URL",
  // Hosted OpenAI-compatible chat services (providers/chat/openai-family.ts `hosted`).
  "DEEPSEEK_BASE_URL",
  "OPENROUTER_BASE_URL",
  "TOGETHER_BASE_URL",
  "FIREWORKS_BASE_URL",
  "XAI_BASE_URL",
  "CEREBRAS_BASE_URL",
  "NVIDIA_NIM_BASE_URL",
  "SAMBANOVA_BASE_URL",
  "PERPLEXITY_BASE_URL",
  "COMETAPI_BASE_URL",
  "SERPAPI_BASE_URL",
  "SERPER_BASE_URL",
  "GOOGLE_CUSTOM_SEARCH_BASE_URL",
  "BRAVE_SEARCH_BASE_URL",
  "TAVILY_BASE_URL",
  "EXA_BASE_URL",
  "WOLFRAM_ALPHA_BASE_URL",
  "SEARCHAPI_BASE_URL",
  // Composio's backend (engine/tools/composio.ts): the composio tool and its pickers.
  "COMPOSIO_BASE_URL",
  // E2B (engine/tools/e2b.ts: codeInterpreterE2B): its API, and its sandboxes' host ({port}, {sandboxId}, {domain} filled in).
  "E2B_API_URL",
  "E2B_SANDBOX_URL",
  // Microsoft Graph v1.0 (engine/tools/microsoft): the microsoftOutlook and microsoftTeams tools.
  "MICROSOFT_GRAPH_BASE_URL",
  // MCP presets' hosts (engine/tools/mcp/presets.ts): Pipedream's API (token) and remote MCP server, Browserless's MCP server.
  "PIPEDREAM_BASE_URL",
  "PIPEDREAM_MCP_BASE_URL",
  "BROWSERLESS_MCP_BASE_URL",
  // githubMCP: GitHub's hosted MCP server; slackMCP: Slack's hosted MCP server (OAuth2) and Web API (server-slack's tools, native).
  "GITHUB_MCP_BASE_URL",
  "SLACK_MCP_BASE_URL",
  "SLACK_API_BASE_URL",
  // Stripe's REST API for stripeAgentTool (engine/tools/stripe.ts).
  "STRIPE_API_BASE_URL",
  // The spiderDocumentLoaders loader (providers/loaders/hosted/crawlers.ts).
  "SPIDER_BASE_URL",
  // The notionPage and notionDB loaders (providers/loaders/notion).
  "NOTION_BASE_URL",
  // The airtable loader (providers/loaders/hosted/airtable.ts).
  "AIRTABLE_BASE_URL",
  // The figma, oxylabs and apifyWebsiteContentCrawler loaders (providers/loaders/hosted/).
  "FIGMA_BASE_URL",
  "OXYLABS_BASE_URL",
  "APIFY_BASE_URL",
  // Google Drive, Sheets and Docs (engine/tools/google/drive|sheets|docs, providers/loaders/google): the APIs' hosts.
  "GOOGLE_DRIVE_BASE_URL",
  "GOOGLE_SHEETS_BASE_URL",
  "GOOGLE_DOCS_BASE_URL",
  // Cloudflare Browser Rendering's REST API (providers/loaders/browser-rendering.ts): playwrightWebScraper and
  // puppeteerWebScraper render pages with it; the account, an API token (a secret) and the API's base URL.
  "BROWSER_RENDERING_ACCOUNT_ID",
  "BROWSER_RENDERING_API_TOKEN",
  "BROWSER_RENDERING_BASE_URL",
  // Gmail and Google Calendar tools (engine/tools/google/gmail.ts, calendar.ts): the APIs' hosts.
  "GMAIL_BASE_URL",
  "GOOGLE_CALENDAR_BASE_URL",
  "ARXIV_BASE_URL",
  "GITHUB_API_BASE_URL",
  "PINECONE_BASE_URL",
  // Zep Cloud's API v2 (providers/vectorstores/zep: zepCloud, ZepMemoryCloud) and mem0's platform API (providers/memory/mem0.ts).
  "ZEP_CLOUD_BASE_URL",
  "MEM0_BASE_URL",
  // Vectara's API (providers/vectorstores/vectara).
  "VECTARA_BASE_URL",
  // DNS over HTTPS for mongodb+srv:// connection strings (providers/mongodb/uri.ts), else Cloudflare's JSON API.
  "MONGODB_DOH_URL",
  // Couchbase's Query and Search service ports when not the defaults (providers/vectorstores/couchbase/client.ts).
  "COUCHBASE_QUERY_PORT",
  "COUCHBASE_SEARCH_PORT",
  // Embeddings services without a base URL input (providers/embeddings/hosted.ts); Together's is TOGETHER_BASE_URL.
  "COHERE_EMBEDDINGS_BASE_URL",
  // The cohere text LLM's Generate API (providers/chat/completion-llms.ts).
  "COHERE_GENERATE_BASE_URL",
  "JINA_EMBEDDINGS_BASE_URL",
  // Rerank services of the reranker retriever nodes (engine/chatflow/nodes/retrievers/rerank.ts).
  "COHERE_RERANK_BASE_URL",
  "JINA_RERANK_BASE_URL",
  "VOYAGE_RERANK_BASE_URL",
  // Speech providers' services (src/providers/speech/): OpenAI's is OPENAI_BASE_URL above.
  "GROQ_BASE_URL",
  "ELEVENLABS_BASE_URL",
  "ASSEMBLYAI_BASE_URL",
  "AZURE_SPEECH_BASE_URL",
] as const;
export type ProviderVar = (typeof PROVIDER_VARS)[number];

/**
 * Vars and secrets a deployment may leave unset. Those with behaviour of their own (time limits,
 * body limits, leases) are parsed, with their defaults, by config.ts; work limits by lib/limits.ts.
 */
interface OptionalConfig extends Partial<Record<Exclude<ProviderVar, keyof CloudflareBindings>, string>> {
  ADMIN_API_KEY?: string;
  JWT_SECRET?: string;
  CREDENTIAL_ENCRYPTION_KEY?: string;
  /**
   * Seconds a document store upsert's lease lasts without a heartbeat (default 60): work whose
   * worker stopped renewing it for that long is shown STALE. A queued upsert's lasts 5 times that.
   */
  UPSERT_LEASE_SECONDS?: string;
  TOOL_TIMEOUT_MS?: string;
  TOOL_SLICE_MS?: string;
  EXECUTION_LEASE_SECONDS?: string;
  /** D1 bindings sqlDatabaseChain flows may query, and those they may also write (docs/flows-and-nodes.md). */
  SQL_D1_BINDINGS?: string;
  SQL_D1_WRITE_BINDINGS?: string;
  /** Browser origins that may call the MCP endpoints (comma-separated, `*` = any); requests from others are 403. */
  MCP_CORS_ORIGINS?: string;
  /** Asynchronous runs (docs/async-runs.md): the key their callbacks are signed with (HMAC-SHA256). */
  CALLBACK_SECRET?: string;
  ASYNC_RUN_TIMEOUT_MS?: string;
  HUMAN_INPUT_TIMEOUT_MS?: string;
  /** Studio sessions: minutes without a request before signing in again (config.ts; default 720). */
  SESSION_IDLE_MINUTES?: string;
  /** ms a detached run may go without progress before it is woken (default 30000; services/executions/wake.ts). */
  DETACHED_STALL_MS?: string;
  /** The largest Flowise export file POST /export-import/import takes, in MB (default 50). */
  MAX_IMPORT_MB?: string;
  /** How long sending one run's trace (Langfuse, LangSmith, OTLP) may take, in ms (default 10000). */
  TRACE_TIMEOUT_MS?: string;
  /**
   * Development only (src/lib/d1-simulation.ts; refused elsewhere): ms added to each D1 round trip to the
   * primary, and to a replica, so the benchmark shows what a client far from D1 pays.
   */
  D1_SIMULATED_RTT_MS?: string;
  D1_SIMULATED_REPLICA_RTT_MS?: string;
}

/** Who made the request, once the bearer token checked out. */
export type Principal =
  | { kind: "admin" }
  | { kind: "apikey"; keyId: string; permissions: string[] | null; chatflows: string[] | null }
  | { kind: "jwt"; subject: string | null }
  /** A person signed in to the studio (session cookie): every permission, as the admin key. */
  | { kind: "session"; accountId: string };

export type AppEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    principal: Principal | null;
    /** 422 on the endpoints whose contract names a validation exception; else 400. */
    validationStatus: 400 | 422;
  };
};

export function isDevelopment(env: Env): boolean {
  return env.ENVIRONMENT === "development";
}

// The body and upload limits are read from the one configuration (config.ts).
export { maxBodyBytes, maxImportBytes, maxUploadBytes } from "./config";

export function listVar(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}
