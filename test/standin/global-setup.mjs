// vitest globalSetup (runs in Node): starts the OpenAI-compatible stand-in and a port that refuses
// connections, and hands their URLs to the tests (`inject("standinUrl")`, `inject("closedUrl")`).
import { createServer } from "node:net";
import { startAnthropicStandin } from "./anthropic.mjs";
import { startBedrockStandin } from "./bedrock.mjs";
import { startAwsServicesStandin } from "./aws-services.mjs";
import { startCohereChatStandin } from "./cohere-chat.mjs";
import { startGeminiStandin } from "./gemini.mjs";
import { startHuggingFaceStandin } from "./huggingface.mjs";
import { startGithubStandin } from "./github.mjs";
import { startGoogleFilesStandin } from "./google-files.mjs";
import { startGoogleApisStandin } from "./google-apis.mjs";
import { startLoadersHostedStandin } from "./loaders-hosted.mjs";
import { startLoadersHosted2Standin } from "./loaders-hosted-2.mjs";
import { startHubStandin } from "./hub.mjs";
import { startMcpStandin } from "./mcp.mjs";
import { startPipedreamStandin } from "./pipedream.mjs";
import { startSlackStandin } from "./slack.mjs";
import { startMicrosoftGraphStandin } from "./microsoft-graph.mjs";
import { startOAuth2Standin } from "./oauth2.mjs";
import { startPineconeStandin } from "./pinecone.mjs";
import { startQdrantStandin } from "./qdrant.mjs";
import { startMilvusStandin } from "./milvus.mjs";
import { startAstraStandin } from "./astra.mjs";
import { startChromaStandin } from "./chroma.mjs";
import { startWeaviateStandin } from "./weaviate.mjs";
import { startElasticStandin } from "./elastic.mjs";
import { startMeilisearchStandin } from "./meilisearch.mjs";
import { startSupabaseStandin } from "./supabase.mjs";
import { startUpstashVectorStandin } from "./upstash-vector.mjs";
import { startZepStandin } from "./zep.mjs";
import { startVectaraStandin } from "./vectara.mjs";
import { startPostgresStandin, startSilentTcp } from "./postgres.mjs";
import { startPgvectorStandin } from "./pgvector.mjs";
import { startMysqlStandin } from "./mysql.mjs";
import { startRedisSearchStandin } from "./redis-search.mjs";
import { startRedirector } from "./redirector.mjs";
import { startRedisStandins } from "./redis.mjs";
import { startReplicateStandin } from "./replicate.mjs";
import { startServices } from "./services.mjs";
import { startSpeechStandin } from "./speech.mjs";
import { startSiteStandin } from "./site.mjs";
import { startBrowserRenderingStandin } from "./browser-rendering.mjs";
import { startStandin } from "./server.mjs";
import { startOpenAIDialectsStandin } from "./openai-dialects.mjs";
import { startEmbeddingsDialectsStandin } from "./embeddings-dialects.mjs";
import { startTracingStandin } from "./tracing.mjs";
import { startVertexStandin } from "./vertex.mjs";
import { startWatsonxStandin } from "./watsonx.mjs";
import { startJiraStandin } from "./jira.mjs";
import { startComposioStandin } from "./composio.mjs";
import { startMiscModelsStandin } from "./misc-models.mjs";
import { startNeo4jStandin } from "./neo4j.mjs";
import { startMongoStandin } from "./mongodb.mjs";
import { startBaiduQianfanStandin } from "./baidu-qianfan.mjs";
import { startMomentoStandin } from "./momento.mjs";
import { startE2bStandin } from "./e2b.mjs";
import { startCouchbaseStandin } from "./couchbase.mjs";
import { startStripeStandin } from "./stripe.mjs";

// A port that refuses connections for the whole run. It is chosen below the kernel's ephemeral range
// (/proc/sys/net/ipv4/ip_local_port_range, 32768–60999 by default), checked free, then closed: a
// port taken from the ephemeral range could be handed to the next `listen(0)` or outgoing
// connection (workerd, a stand-in, a browser), and then "nothing listening" answers instead.
async function closedPort() {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 10000);
    const srv = createServer();
    const bound = await new Promise((r) => {
      srv.once("error", () => r(false));
      srv.listen(port, "127.0.0.1", () => r(true));
    });
    if (!bound) continue;
    await new Promise((r) => srv.close(r));
    return `http://127.0.0.1:${port}`;
  }
  throw new Error("no free port below the ephemeral range for closedUrl");
}

export default async function setup(project) {
  // The stand-ins' request handlers are async: one whose client hung up mid-request (a deadline, a
  // reset) rejects, and an unhandled rejection would end this process and the whole run with it.
  process.on("unhandledRejection", (err) => console.error(`stand-in: a request failed: ${err?.message ?? err}`));
  const standin = await startStandin();
  project.provide("standinUrl", standin.url);
  project.provide("closedUrl", await closedPort());
  // Search APIs, arXiv, web pages and an echo for the tools (services.mjs).
  const toolServices = await startServices();
  project.provide("servicesUrl", toolServices.url);
  // One small stand-in per native service (test/standin/<service>.mjs).
  const services = {
    anthropicUrl: await startAnthropicStandin(),
    bedrockUrl: await startBedrockStandin(),
    awsServicesUrl: await startAwsServicesStandin(),
    cohereChatUrl: await startCohereChatStandin(),
    geminiUrl: await startGeminiStandin(),
    huggingFaceUrl: await startHuggingFaceStandin(),
    replicateUrl: await startReplicateStandin(),
    pineconeUrl: await startPineconeStandin(),
    qdrantUrl: await startQdrantStandin(),
    milvusUrl: await startMilvusStandin(),
    astraUrl: await startAstraStandin(),
    chromaUrl: await startChromaStandin(),
    weaviateUrl: await startWeaviateStandin(),
    elasticsearchUrl: await startElasticStandin("elasticsearch"),
    openSearchUrl: await startElasticStandin("opensearch"),
    meilisearchUrl: await startMeilisearchStandin(),
    upstashVectorUrl: await startUpstashVectorStandin(),
    zepUrl: await startZepStandin(),
    vectaraUrl: await startVectaraStandin(),
    supabaseUrl: await startSupabaseStandin(),
    postgresUrl: await startPostgresStandin(),
    silentPostgresUrl: await startSilentTcp(),
    pgvectorUrl: await startPgvectorStandin(),
    mysqlUrl: await startMysqlStandin(),
    redisSearchUrl: await startRedisSearchStandin(),
    githubUrl: await startGithubStandin(),
    googleFilesUrl: await startGoogleFilesStandin(),
    googleApisUrl: await startGoogleApisStandin(),
    loadersHostedUrl: await startLoadersHostedStandin(),
    loadersHosted2Url: await startLoadersHosted2Standin(),
    mcpUrl: await startMcpStandin(),
    pipedreamUrl: await startPipedreamStandin(),
    slackUrl: await startSlackStandin(),
    microsoftGraphUrl: await startMicrosoftGraphStandin(),
    oauth2Url: await startOAuth2Standin(),
    tracingUrl: await startTracingStandin(),
    speechUrl: await startSpeechStandin(),
    hubUrl: await startHubStandin(),
    siteUrl: await startSiteStandin(),
    browserRenderingUrl: await startBrowserRenderingStandin(),
    vertexUrl: await startVertexStandin(),
    watsonxUrl: await startWatsonxStandin(),
    jiraUrl: await startJiraStandin(),
    composioUrl: await startComposioStandin(),
    miscModelsUrl: await startMiscModelsStandin(),
    neo4jUrl: await startNeo4jStandin(),
    mongoUrl: await startMongoStandin(),
    baiduQianfanUrl: await startBaiduQianfanStandin(),
    momentoUrl: await startMomentoStandin(),
    e2bUrl: await startE2bStandin(),
    couchbaseUrl: await startCouchbaseStandin(),
    stripeUrl: await startStripeStandin(),
    openaiDialectsUrl: await startOpenAIDialectsStandin(),
    embeddingsDialectsUrl: await startEmbeddingsDialectsStandin(),
  };
  for (const [key, s] of Object.entries(services)) project.provide(key, s.url);
  project.provide("pgvectorPort", services.pgvectorUrl.port);
  project.provide("mysqlPort", services.mysqlUrl.port);
  project.provide("redisSearchRedisUrl", services.redisSearchUrl.redisUrl);
  project.provide("neo4jBoltUrl", services.neo4jUrl.boltUrl);
  project.provide("neo4jLegacyBoltUrl", services.neo4jUrl.legacyBoltUrl);
  project.provide("mongoWireUrl", services.mongoUrl.mongoUrl);
  project.provide("mongoSecondaryUrl", services.mongoUrl.secondaryUrl);
  project.provide("couchbaseSearchUrl", services.couchbaseUrl.searchUrl);
  project.provide("couchbaseQueryPort", services.couchbaseUrl.queryPort);
  project.provide("couchbaseSearchPort", services.couchbaseUrl.searchPort);
  // Redis over TCP (RESP) and Upstash's REST API, one keyspace (test/standin/redis.mjs).
  const redis = await startRedisStandins();
  project.provide("upstashUrl", redis.url);
  project.provide("redisUrl", redis.redisUrl);
  // Two origins that redirect (test/standin/redirector.mjs), ending at the stand-ins above.
  const redirector = await startRedirector({
    openai: standin.url,
    tools: toolServices.url,
    anthropic: services.anthropicUrl.url,
    gemini: services.geminiUrl.url,
    pinecone: services.pineconeUrl.url,
    github: services.githubUrl.url,
    mcp: services.mcpUrl.url,
    tracing: services.tracingUrl.url,
    upstash: redis.url,
  });
  project.provide("redirectorA", redirector.a);
  project.provide("redirectorB", redirector.b);
  return async () => {
    await redirector.close();
    await toolServices.close();
    await standin.close();
    for (const s of Object.values(services)) await s.close();
    await redis.close();
  };
}
