// Values the vitest globalSetup (test/standin/global-setup.mjs) provides to the engine tests.
declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the OpenAI-compatible stand-in, e.g. http://127.0.0.1:40123 (append /v1). */
    standinUrl: string;
    /** A URL on 127.0.0.1 where nothing listens. */
    closedUrl: string;
    /** An OAuth2 provider's token endpoint (test/standin/oauth2.mjs): POST /token. */
    oauth2Url: string;
    /** Azure rerank, NeMo Guardrails and Langfuse prompts stand-in (test/standin/misc-models.mjs). */
    miscModelsUrl: string;
    /** Baidu Qianfan wenxinworkshop stand-in, bce-auth-v1 verified (test/standin/baidu-qianfan.mjs). */
    baiduQianfanUrl: string;
    /** Momento Cache HTTP API stand-in, token checked (test/standin/momento.mjs). */
    momentoUrl: string;
    /** E2B's API and its sandboxes' Jupyter server, key checked (test/standin/e2b.mjs). */
    e2bUrl: string;
    /** Base URL of the tool services' stand-in (test/standin/services.mjs). */
    servicesUrl: string;
    /** Anthropic Messages API stand-in (test/standin/anthropic.mjs), e.g. http://127.0.0.1:40124. */
    anthropicUrl: string;
    /** AWS Bedrock Runtime stand-in, SigV4 checked (test/standin/bedrock.mjs). */
    bedrockUrl: string;
    /** Bedrock Agent Runtime, SNS, DynamoDB and S3 stand-in, SigV4 checked per service (test/standin/aws-services.mjs). */
    awsServicesUrl: string;
    /** Cohere Chat API v2 stand-in (test/standin/cohere-chat.mjs). */
    cohereChatUrl: string;
    /** Gemini API stand-in (test/standin/gemini.mjs). */
    geminiUrl: string;
    /** Hugging Face Inference stand-in (test/standin/huggingface.mjs). */
    huggingFaceUrl: string;
    /** Replicate predictions stand-in (test/standin/replicate.mjs). */
    replicateUrl: string;
    /** Pinecone stand-in (test/standin/pinecone.mjs): control plane and data plane. */
    pineconeUrl: string;
    /** Qdrant REST API stand-in (test/standin/qdrant.mjs). */
    qdrantUrl: string;
    /** Milvus RESTful API v2 stand-in (test/standin/milvus.mjs). */
    milvusUrl: string;
    /** Astra DB Data API stand-in (test/standin/astra.mjs). */
    astraUrl: string;
    /** MongoDB stand-in's HTTP side (test/standin/mongodb.mjs): /requests?collection=, /dump/<db>/<coll>, DoH /dns-query. */
    mongoUrl: string;
    /** mongodb://127.0.0.1:<port> of the stand-in's primary (OP_MSG, SCRAM-SHA-256). */
    mongoWireUrl: string;
    /** mongodb://127.0.0.1:<port> of the stand-in's secondary (its hello names the primary). */
    mongoSecondaryUrl: string;
    /** Couchbase stand-in (test/standin/couchbase.mjs): the Query service's origin (also /dump/<b>/<s>/<c>, /log?contains=). */
    couchbaseUrl: string;
    /** Its Search service's origin; the two ports (COUCHBASE_QUERY_PORT, COUCHBASE_SEARCH_PORT in tests). */
    couchbaseSearchUrl: string;
    couchbaseQueryPort: string;
    couchbaseSearchPort: string;
    /** Chroma REST API v2 stand-in (test/standin/chroma.mjs). */
    chromaUrl: string;
    /** Weaviate REST and GraphQL stand-in (test/standin/weaviate.mjs). */
    weaviateUrl: string;
    /** Elasticsearch and OpenSearch stand-ins (test/standin/elastic.mjs), one server each. */
    elasticsearchUrl: string;
    openSearchUrl: string;
    /** Meilisearch REST stand-in (test/standin/meilisearch.mjs). */
    meilisearchUrl: string;
    /** Upstash Vector REST stand-in (test/standin/upstash-vector.mjs): an index per path prefix. */
    upstashVectorUrl: string;
    /** Vectara REST API v2 stand-in (test/standin/vectara.mjs): documents per corpus key; v1 paths answer 404. */
    vectaraUrl: string;
    /** Zep Cloud (/api/v2), open-source Zep (/api/v1) and mem0 (/v1/memories) stand-in (test/standin/zep.mjs). */
    zepUrl: string;
    /** Supabase PostgREST stand-in (test/standin/supabase.mjs): documents tables and match functions. */
    supabaseUrl: string;
    /** A real Postgres (PGlite) on loopback, seeded with `albums` (test/standin/postgres.mjs): postgres://…. */
    postgresUrl: string;
    /** postgres://… on a port that accepts and never answers (a database that hangs). */
    silentPostgresUrl: string;
    /** Postgres with pgvector (PGlite) behind a password-checking proxy (test/standin/pgvector.mjs): its HTTP side (/requests, /dump/<table>, /sql). */
    pgvectorUrl: string;
    /** The loopback port of that Postgres (user flowise, password pgv-standin-password). */
    pgvectorPort: number;
    /** A MySQL server over PGlite (test/standin/mysql.mjs): its HTTP side (/requests, /dump/<database>/<table>, /sql). */
    mysqlUrl: string;
    /** Its MySQL port: users flowise (mysql_native_password) and analyst (caching_sha2_password), databases shop and vectors. */
    mysqlPort: number;
    /** Redis Stack (RediSearch) stand-in over RESP (test/standin/redis-search.mjs): its HTTP side (/requests, /dump/<index>). */
    redisSearchUrl: string;
    /** redis://127.0.0.1:PORT of that stand-in (password redis-search-password). */
    redisSearchRedisUrl: string;
    /** Neo4j Bolt stand-in (test/standin/neo4j.mjs): its HTTP side (PUT /script/<user>, GET /runs/<user>). */
    neo4jUrl: string;
    /** neo4j://127.0.0.1:PORT of that stand-in (Bolt 5.4; password neo4j-standin-password, the username a test's marker). */
    neo4jBoltUrl: string;
    /** bolt://127.0.0.1:PORT of the same stand-in agreeing on Bolt 4.4. */
    neo4jLegacyBoltUrl: string;
    /** GitHub REST API stand-in (test/standin/github.mjs). */
    githubUrl: string;
    /** Google Drive v3, Sheets v4 and Docs v1 stand-in, bearer tokens checked (test/standin/google-files.mjs). */
    googleFilesUrl: string;
    /** Gmail API v1 and Google Calendar API v3 stand-in, bearer tokens checked (test/standin/google-apis.mjs). */
    googleApisUrl: string;
    /** FireCrawl and Spider stand-ins for the hosted document loaders (test/standin/loaders-hosted.mjs). */
    loadersHostedUrl: string;
    /** Figma, Unstructured, Oxylabs, Apify and GitBook pages for the second hosted loaders (test/standin/loaders-hosted-2.mjs). */
    loadersHosted2Url: string;
    /** Microsoft Graph v1.0 stand-in for the Outlook and Teams tools, bearer token checked (test/standin/microsoft-graph.mjs). */
    microsoftGraphUrl: string;
    /** A loopback MCP server built with the SDK (test/standin/mcp.mjs). */
    mcpUrl: string;
    /** Pipedream Connect: its token endpoint and remote MCP server (test/standin/pipedream.mjs). */
    pipedreamUrl: string;
    /** Slack's Web API under /api/ for slackMCP's bot-token tools (test/standin/slack.mjs). */
    slackUrl: string;
    /** Mistral, Perplexity, DeepSeek and Groq chat completions, each with its own rules, by path prefix (test/standin/openai-dialects.mjs). */
    openaiDialectsUrl: string;
    /** Mistral (/v1), Voyage, Jina and Together (/voyage/v1, /jina/v1, /together/v1) embeddings (embeddings-dialects.mjs). */
    embeddingsDialectsUrl: string;
    /** Stripe's REST API (/v1/…, form bodies, keys sk_test_ok_*) for stripeAgentTool (test/standin/stripe.mjs). */
    stripeUrl: string;
    /** Upstash REST stand-in, also GET /commands (TCP commands received) and /keys/KEY (test/standin/redis.mjs). */
    upstashUrl: string;
    /** redis://127.0.0.1:PORT of the RESP stand-in. */
    redisUrl: string;
    /** Langfuse, LangSmith and OTLP collector stand-ins (test/standin/tracing.mjs), by path prefix. */
    tracingUrl: string;
    /** Speech services stand-in (test/standin/speech.mjs): OpenAI audio, ElevenLabs, Azure, AssemblyAI. */
    speechUrl: string;
    /** LangChain Hub's HTTP API stand-in (test/standin/hub.mjs). */
    hubUrl: string;
    /** Google OAuth token endpoint and Vertex AI stand-in, JWTs verified (test/standin/vertex.mjs). */
    vertexUrl: string;
    /** IBM Cloud IAM and watsonx.ai stand-in (test/standin/watsonx.mjs). */
    watsonxUrl: string;
    /** Jira REST API v3/v2 stand-in, and a small HTTP API with its docs and OpenAPI spec for the API chains (test/standin/jira.mjs). */
    jiraUrl: string;
    /** Composio's backend: apps, actions, connected accounts, execution; X-API-KEY checked (test/standin/composio.mjs). */
    composioUrl: string;
    /** A small web site with links and a sitemap (test/standin/site.mjs). */
    siteUrl: string;
    /** Cloudflare Browser Rendering's REST API and a small site for the web scrapers (test/standin/browser-rendering.mjs). */
    browserRenderingUrl: string;
    /** The redirecting stand-in's two origins (test/standin/redirector.mjs): base URLs on two loopback ports. */
    redirectorA: string;
    redirectorB: string;
  }
}
export {};
