// Issue 18, point 3: owner-configured endpoints bypassed the outbound policy. A chatflow whose
// chatOpenAI basepath (or a credential's basePath, chatOllama's baseUrl, an embeddings basepath, a
// Pinecone host, a Redis address, …) pointed at loopback, a private range or the cloud metadata
// address was called there, with the chosen credential. Now every endpoint a provider calls is
// under the policy's endpoint rule: a 400 naming the field and the rule, before anything is sent;
// OUTBOUND_ALLOW lifts it for listed hosts; ENVIRONMENT=development (and the test runner's
// ENVIRONMENT=test) may reach loopback, nothing else.
import { afterEach, describe, expect, inject, it, vi } from "vitest";
import { buildChatModel } from "../../src/providers/chat/registry";
import { buildEmbeddings } from "../../src/providers/embeddings/registry";
import { openAIModeration } from "../../src/providers/moderation";
import { buildReranker } from "../../src/engine/chatflow/nodes/retrievers/rerank";
import { redisFromCredential, upstashFromInputs } from "../../src/providers/memory/redis";
import { Neo4jGraph } from "../../src/providers/graph/neo4j/graph";
import { buildVectorStore } from "../../src/providers/vectorstores/registry";
import { loadDocuments } from "../../src/providers/loaders/registry";
import { AWS_SERVICES, awsClient } from "../../src/providers/aws/client";
import { buildTool } from "../../src/engine/tools/registry";
import { workLimits } from "../../src/lib/limits";
import { LocalHashEmbeddings } from "../../src/providers/embeddings/local-hash";
import { db, marker, standinUrl } from "../engine/helpers";
import { call, expectError, json } from "../helpers";
import { newStore } from "../routes/document-store-helpers";
import { framesOf, openAICredential, saveChain, setVars, standinRequests } from "./helpers";
import { flow, ref } from "../engine/retrieval-flows";

const PRODUCTION = { ENVIRONMENT: "production", OUTBOUND_ALLOW: "" };
const RULE = /refused by the outbound policy: .* \(OUTBOUND_ALLOW can list hosts that may be reached/;

afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs `fn` with deployment vars set on the worker's env, then puts them back. */
async function withVars<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const restore = setVars(vars);
  try {
    return await fn();
  } finally {
    restore();
  }
}

const credentialWith = async (credentialName: string, plainDataObj: Record<string, unknown>) =>
  (await json("POST", "/credentials", { body: { name: "endpoint", credentialName, plainDataObj } })).id as string;

describe("a chat model's endpoint through POST /prediction", () => {
  it("in production, chatOpenAI basepath on loopback is a 400 naming the input and the rule; the model is never called", async () => {
    const credential = await openAICredential("sk-secret-endpoint-key");
    const id = await saveChain({ model: "chatOpenAI", credential });
    const m = marker();
    await withVars(PRODUCTION, async () => {
      const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: m } }), 400);
      expect(err.message).toMatch(
        /^chatOpenAI basepath refused by the outbound policy: 127\.0\.0\.1 is a loopback address \(127\.0\.0\.0\/8\)/,
      );
      expect(err.message).toContain("loopback is allowed only when ENVIRONMENT=development");
      // Streaming: the refusal is the stream's error frame, then end (no token, nothing stored).
      const frames = await framesOf(await call("POST", `/prediction/${id}`, { body: { question: m, streaming: true } }));
      expect(frames.map((f) => f.event)).toEqual(["error", "end"]);
      expect(frames[0].data).toMatch(/^chatOpenAI basepath refused by the outbound policy: 127\.0\.0\.1 is a loopback address/);
    });
    expect(await standinRequests(m)).toEqual([]);
  });

  it("a credential's basePath on a private address is refused in every environment, naming the credential field", async () => {
    const credential = await credentialWith("openAIApi", { openAIApiKey: "sk-private", basePath: "http://10.20.30.40:8000/v1" });
    const spy = vi.spyOn(globalThis, "fetch");
    const id = await saveChain({ model: "chatOpenAI", credential, base: "" });
    const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "hi" } }), 400);
    expect(err.message).toMatch(
      /^openAIApi credential basePath refused by the outbound policy: 10\.20\.30\.40 is a private address \(10\.0\.0\.0\/8\)/,
    );
    expect(
      spy.mock.calls.map(([input]) => String(input instanceof Request ? input.url : input)).filter((u) => u.includes("10.20.30.40")),
    ).toEqual([]);
  });

  it("chatOllama's baseUrl at the cloud metadata address is refused", async () => {
    const id = await saveChain({ model: "chatOllama", base: "http://169.254.169.254/latest" });
    const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "hi" } }), 400);
    expect(err.message).toMatch(/^chatOllama baseUrl refused by the outbound policy: 169\.254\.169\.254 is a link-local address/);
  });

  it("OUTBOUND_ALLOW lets a listed model server through in production", async () => {
    const credential = await openAICredential("sk-allowed");
    const id = await saveChain({ model: "chatOpenAI", credential });
    const m = marker();
    const answer = await withVars({ ...PRODUCTION, OUTBOUND_ALLOW: new URL(standinUrl()).host }, () =>
      json("POST", `/prediction/${id}`, { body: { question: m } }),
    );
    expect(answer.text).toBe(`echo: ${m}`);
    expect(await standinRequests(m)).toHaveLength(1);
  });

  it("ENVIRONMENT=development reaches loopback (local models, stand-ins), not private ranges", async () => {
    const credential = await openAICredential("sk-dev");
    const local = await saveChain({ model: "chatOpenAI", credential });
    const m = marker();
    await withVars({ ENVIRONMENT: "development", OUTBOUND_ALLOW: "" }, async () => {
      expect((await json("POST", `/prediction/${local}`, { body: { question: m } })).text).toBe(`echo: ${m}`);
      const lan = await saveChain({ model: "chatOpenAI", credential, base: "http://192.168.1.20:11434/v1" });
      expect((await expectError(await call("POST", `/prediction/${lan}`, { body: { question: "hi" } }), 400)).message).toMatch(
        /192\.168\.1\.20 is a private address/,
      );
    });
  });

  it("a redirect from an allowed endpoint to the metadata address is refused, not followed", async () => {
    const credential = await openAICredential("sk-redirect");
    const id = await saveChain({ model: "chatOpenAI", credential, base: "https://llm.example.com/v1" });
    const seen: string[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
      const url = String(input instanceof Request ? input.url : input);
      seen.push(url);
      return new Response(null, { status: 307, headers: { location: "http://169.254.169.254/latest/meta-data/" } });
    });
    const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "hi" } }), 400);
    expect(err.message).toMatch(/^chatOpenAI basepath refused by the outbound policy: 169\.254\.169\.254 is a link-local address/);
    expect(seen).toEqual(["https://llm.example.com/v1/chat/completions"]);
  });
});

describe("every chat model node's endpoint field", () => {
  const deps = (env: Record<string, string> = PRODUCTION) => ({
    env,
    getCredential: async () => ({ openAIApiKey: "k", cloudflareWorkersAccountId: "a", cloudflareWorkersApiToken: "t" }),
  });
  const cases: Array<[node: string, config: Record<string, unknown>, field: string]> = [
    ["chatOpenAI", { basepath: "http://127.0.0.1:1234/v1" }, "chatOpenAI basepath"],
    ["chatOpenAICustom", { basepath: "http://[::1]:8080/v1" }, "chatOpenAICustom basepath"],
    ["azureChatOpenAI", { basepath: "http://10.0.0.1/openai/deployments", modelName: "d" }, "azureChatOpenAI basepath"],
    ["chatMistralAI", { overrideEndpoint: "http://172.16.0.9" }, "chatMistralAI overrideEndpoint"],
    ["chatOllama", {}, "chatOllama baseUrl"], // its default, http://127.0.0.1:11434, is loopback too
    ["chatLocalAI", { basePath: "http://localhost:8080/v1" }, "chatLocalAI basePath"],
    ["groqChat", { basepath: "http://100.64.1.1/v1" }, "groqChat basepath"],
    ["chatCloudflareWorkersAI", { baseUrl: "http://192.168.0.2/ai/v1", credential: "c" }, "chatCloudflareWorkersAI baseUrl"],
    ["chatAnthropic", { baseUrl: "http://[fd00::1]" }, "chatAnthropic baseUrl"],
    ["awsChatBedrock", { endpointHost: "10.9.9.9" }, "awsChatBedrock endpointHost"],
    ["chatHuggingFace", { model: "m/x", endpoint: "http://10.9.9.8", credential: "c" }, "chatHuggingFace endpoint"],
    ["chatGoogleGenerativeAI", { baseUrl: "http://metadata.google.internal" }, "chatGoogleGenerativeAI baseUrl"],
    ["huggingFaceInference_LLMs", { endpoint: "http://[::ffff:127.0.0.1]/generate" }, "huggingFaceInference_LLMs endpoint"],
    ["chatOpenRouter", { basepath: "http://10.2.0.1/api/v1" }, "chatOpenRouter basepath"],
    ["chatCerebras", { basepath: "http://192.168.7.7/v1" }, "chatCerebras basepath"],
    ["chatNvidiaNIM", { basePath: "http://127.0.0.1:8000/v1" }, "chatNvidiaNIM basePath"],
    ["chatLitellm", { basePath: "http://localhost:4000" }, "chatLitellm basePath"],
    ["chatSambanova", { basepath: "http://169.254.169.254/v1" }, "chatSambanova basepath"],
    ["openAI", { basepath: "http://10.3.0.1/v1" }, "openAI basepath"],
    ["chatNemoGuardrails", { configurationId: "c", baseUrl: "http://10.6.6.6:8000" }, "chatNemoGuardrails baseUrl"],
    ["ollama", {}, "ollama baseUrl"], // its default, http://127.0.0.1:11434, is loopback
  ];
  for (const [node, config, field] of cases) {
    it(`${node}: ${field}`, async () => {
      const err = await buildChatModel(node, config, deps()).then(
        () => undefined,
        (e: unknown) => e as { status: number; message: string },
      );
      expect(err?.status).toBe(400);
      expect(err?.message).toMatch(new RegExp(`^${field} refused by the outbound policy: `));
      expect(err?.message).toMatch(RULE);
    });
  }

  it("deployment vars that set a provider's base URL are under the rule too (named in the refusal)", async () => {
    for (const [node, env, field] of [
      ["chatOpenAI", { OPENAI_BASE_URL: "http://10.1.1.1/v1" }, "OPENAI_BASE_URL"],
      ["chatAnthropic", { ANTHROPIC_BASE_URL: "http://10.1.1.2" }, "ANTHROPIC_BASE_URL"],
      ["replicate", { REPLICATE_BASE_URL: "http://10.1.1.3" }, "REPLICATE_BASE_URL"],
      ["chatDeepseek", { DEEPSEEK_BASE_URL: "http://10.1.1.4" }, "DEEPSEEK_BASE_URL"],
      ["chatOpenRouter", { OPENROUTER_BASE_URL: "http://10.1.1.5/api/v1" }, "OPENROUTER_BASE_URL"],
      ["chatTogetherAI", { TOGETHER_BASE_URL: "http://10.1.1.6/v1" }, "TOGETHER_BASE_URL"],
      ["chatFireworks", { FIREWORKS_BASE_URL: "http://10.1.1.7/inference/v1" }, "FIREWORKS_BASE_URL"],
      ["chatXAI", { XAI_BASE_URL: "http://10.1.1.8/v1" }, "XAI_BASE_URL"],
      ["chatCerebras", { CEREBRAS_BASE_URL: "http://10.1.1.9/v1" }, "CEREBRAS_BASE_URL"],
      ["chatNvidiaNIM", { NVIDIA_NIM_BASE_URL: "http://10.1.1.10/v1" }, "NVIDIA_NIM_BASE_URL"],
      ["chatSambanova", { SAMBANOVA_BASE_URL: "http://10.1.1.11/v1" }, "SAMBANOVA_BASE_URL"],
      ["chatPerplexity", { PERPLEXITY_BASE_URL: "http://10.1.1.12" }, "PERPLEXITY_BASE_URL"],
      ["chatCometAPI", { COMETAPI_BASE_URL: "http://10.1.1.13/v1" }, "COMETAPI_BASE_URL"],
      ["openAI", { OPENAI_BASE_URL: "http://10.1.1.14/v1" }, "OPENAI_BASE_URL"],
      ["togetherAI", { TOGETHER_BASE_URL: "http://10.1.1.15/v1" }, "TOGETHER_BASE_URL"],
      ["fireworks", { FIREWORKS_BASE_URL: "http://10.1.1.16/inference/v1" }, "FIREWORKS_BASE_URL"],
      ["sambanova", { SAMBANOVA_BASE_URL: "http://10.1.1.17/v1" }, "SAMBANOVA_BASE_URL"],
      ["cohere", { COHERE_GENERATE_BASE_URL: "http://10.1.1.18" }, "COHERE_GENERATE_BASE_URL"],
      ["awsChatBedrock", { AWS_BEDROCK_BASE_URL: "http://10.1.1.19" }, "AWS_BEDROCK_BASE_URL"],
      ["awsBedrock", { AWS_BEDROCK_BASE_URL: "http://10.1.1.22" }, "AWS_BEDROCK_BASE_URL"],
      ["chatCohere", { COHERE_CHAT_BASE_URL: "http://10.1.1.20" }, "COHERE_CHAT_BASE_URL"],
      ["chatAlibabaTongyi", { DASHSCOPE_BASE_URL: "http://10.1.1.21" }, "DASHSCOPE_BASE_URL"],
      ["chatBaiduWenxin", { BAIDU_QIANFAN_BASE_URL: "http://10.1.1.23" }, "BAIDU_QIANFAN_BASE_URL"],
      ["chatHuggingFace", { HUGGINGFACE_BASE_URL: "http://10.1.1.21/hf-inference" }, "HUGGINGFACE_BASE_URL"],
    ] as const) {
      const err = await buildChatModel(node, { model: "a/b" }, { env: { ...PRODUCTION, ...env }, getCredential: async () => ({}) }).catch(
        (e) => e,
      );
      expect(err.message, node).toMatch(new RegExp(`^${field} refused by the outbound policy: `));
    }
  });

  it("Vertex AI's and watsonx's endpoints: their vars, the service account's token_uri, ibmWatsonx serviceUrl", async () => {
    const key = { type: "service_account", project_id: "p", client_email: "a@p.iam.gserviceaccount.com", private_key: "k" };
    const vertex = (env: Record<string, string>, over: Record<string, unknown> = {}) =>
      buildChatModel(
        "chatGoogleVertexAI",
        { modelName: "gemini-2.5-flash", credential: "c" },
        {
          env: { ...PRODUCTION, ...env },
          getCredential: async () => ({ googleApplicationCredential: JSON.stringify({ ...key, ...over }) }),
        },
      ).catch((e) => e.message);
    expect(await vertex({ GOOGLE_VERTEX_BASE_URL: "http://10.1.1.30" })).toMatch(
      /^GOOGLE_VERTEX_BASE_URL refused by the outbound policy: /,
    );
    expect(await vertex({}, { token_uri: "http://169.254.169.254/token" })).toMatch(
      /^googleVertexAuth token_uri refused by the outbound policy: /,
    );
    const wx = { version: "2024-05-31", serviceUrl: "https://us-south.ml.cloud.ibm.com", projectId: "p", watsonxAIApikey: "k" };
    const watsonx = (env: Record<string, string>, over: Record<string, unknown> = {}) =>
      buildChatModel(
        "chatIBMWatsonx",
        { modelName: "m", credential: "c" },
        { env: { ...PRODUCTION, ...env }, getCredential: async () => ({ ...wx, ...over }) },
      ).catch((e) => e.message);
    expect(await watsonx({}, { serviceUrl: "http://10.1.1.31" })).toMatch(/^ibmWatsonx serviceUrl refused by the outbound policy: /);
    expect(await watsonx({ IBM_IAM_BASE_URL: "http://10.1.1.32" })).toMatch(/^IBM_IAM_BASE_URL refused by the outbound policy: /);
  });

  it("public endpoints and OUTBOUND_ALLOW'd ones build", async () => {
    await expect(buildChatModel("chatOpenAI", { basepath: "https://llm.example.com/v1" }, deps())).resolves.toBeDefined();
    await expect(
      buildChatModel("chatMistralAI", { overrideEndpoint: "http://172.16.0.9" }, deps({ ...PRODUCTION, OUTBOUND_ALLOW: "172.16.0.9" })),
    ).resolves.toBeDefined();
  });
});

describe("hosted document loaders (figma, oxylabs, apify, unstructured)", () => {
  it("FIGMA_BASE_URL, OXYLABS_BASE_URL and APIFY_BASE_URL on private addresses are 400s naming them; unstructuredAPIUrl too", async () => {
    const refused = (name: string, config: Record<string, unknown>, services: Record<string, string>) =>
      loadDocuments(name, {
        config: { credential: "c", ...config },
        files: [{ name: "a.txt", mime: "text/plain", bytes: new TextEncoder().encode("hi") }],
        outbound: {},
        maxBytes: 1 << 20,
        limits: workLimits({}),
        getCredential: async () => ({ accessToken: "figma-secret", username: "u", password: "oxy-secret", apifyApiToken: "apify-secret" }),
        services: { ...services, ENVIRONMENT: "production" },
      }).then(
        () => undefined,
        (e: { status: number; message: string }) => e,
      );
    const figma = await refused("figma", { fileKey: "k", nodeIds: "1" }, { FIGMA_BASE_URL: "http://10.3.0.1" });
    expect(figma).toMatchObject({ status: 400, message: expect.stringMatching(/^FIGMA_BASE_URL refused by the outbound policy: /) });
    expect(figma?.message).not.toContain("figma-secret");
    const oxy = await refused("oxylabs", { query: "q" }, { OXYLABS_BASE_URL: "http://192.168.3.2" });
    expect(oxy).toMatchObject({ status: 400, message: expect.stringMatching(/^OXYLABS_BASE_URL refused by the outbound policy: /) });
    const apify = await refused("apifyWebsiteContentCrawler", { urls: "https://x.example" }, { APIFY_BASE_URL: "http://10.3.0.3" });
    expect(apify).toMatchObject({ status: 400, message: expect.stringMatching(/^APIFY_BASE_URL refused by the outbound policy: /) });
    const unstructured = await refused("unstructuredFileLoader", { unstructuredAPIUrl: "http://169.254.169.254/general/v0/general" }, {});
    expect(unstructured).toMatchObject({ status: 400 });
    // BROWSER_RENDERING_BASE_URL (playwrightWebScraper, puppeteerWebScraper): refused before the token is sent.
    const rendering = {
      BROWSER_RENDERING_ACCOUNT_ID: "acct",
      BROWSER_RENDERING_API_TOKEN: "cf-secret",
      BROWSER_RENDERING_BASE_URL: "http://10.3.0.4",
    };
    const browser = await refused("puppeteerWebScraper", { url: "https://docs.example.com/" }, rendering);
    expect(browser).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^BROWSER_RENDERING_BASE_URL refused by the outbound policy: /),
    });
    expect(browser?.message).not.toContain("cf-secret");
  });
});

describe("hosted document loaders", () => {
  it("search, crawler and Notion loaders: base URL vars and firecrawlApiUrl on private addresses are 400s naming them; apiLoader's url too", async () => {
    const refused = (name: string, config: Record<string, unknown>, services: Record<string, string>, outbound = {}) =>
      loadDocuments(name, {
        config,
        files: [],
        outbound,
        maxBytes: 1 << 20,
        limits: workLimits({}),
        getCredential: async () => ({
          serpApiKey: "serp-secret-key",
          braveApiKey: "brave-secret-key",
          spiderApiKey: "spider-secret-key",
          firecrawlApiToken: "fc-secret-key",
          firecrawlApiUrl: "http://169.254.169.254/fc",
          notionIntegrationToken: "notion-secret-token",
          username: "u@example.com",
          accessToken: "jira-secret-token",
        }),
        services: { ...services, ENVIRONMENT: "production" },
      }).then(
        () => undefined,
        (e: { status: number; message: string }) => e,
      );
    const serp = await refused("serpApi", { query: "q", credential: "c" }, { SERPAPI_BASE_URL: "http://10.0.0.9" });
    expect(serp).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^SERPAPI_BASE_URL refused by the outbound policy: 10\.0\.0\.9 is a private/),
    });
    expect(serp?.message).not.toContain("serp-secret-key");
    const brave = await refused(
      "braveSearchApiLoader",
      { query: "q", credential: "c" },
      { BRAVE_SEARCH_BASE_URL: `${standinUrl()}/brave` },
    );
    expect(brave).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^BRAVE_SEARCH_BASE_URL refused by the outbound policy: 127\.0\.0\.1 is a loopback/),
    });
    const spider = await refused(
      "spiderDocumentLoaders",
      { url: "https://a.example", credential: "c" },
      { SPIDER_BASE_URL: "http://10.2.0.1" },
    );
    expect(spider).toMatchObject({ status: 400, message: expect.stringMatching(/^SPIDER_BASE_URL refused by the outbound policy: /) });
    const notion = await refused("notionPage", { pageId: "p", credential: "c" }, { NOTION_BASE_URL: "http://192.168.1.9" });
    expect(notion).toMatchObject({ status: 400, message: expect.stringMatching(/^NOTION_BASE_URL refused by the outbound policy: /) });
    expect(notion?.message).not.toContain("notion-secret-token");
    const jira = await refused("jira", { host: "http://10.9.9.9", projectKey: "K", credential: "c" }, {});
    expect(jira).toMatchObject({ status: 400, message: expect.stringContaining("10.9.9.9 is a private address") });
    expect(jira?.message).not.toContain("jira-secret-token");
    for (const [loader, config, field] of [
      ["googleDrive", { folderId: "f", credential: "c" }, "GOOGLE_DRIVE_BASE_URL"],
      ["googleSheets", { spreadsheetIds: "s", credential: "c" }, "GOOGLE_SHEETS_BASE_URL"],
    ] as const) {
      const google = await refused(loader, config, { [field]: "http://10.4.4.4" });
      expect(google, loader).toMatchObject({
        status: 400,
        message: expect.stringMatching(new RegExp(`^${field} refused by the outbound policy: `)),
      });
    }
    const airtable = await refused("airtable", { baseId: "b", tableId: "t", credential: "c" }, { AIRTABLE_BASE_URL: "http://172.16.0.4" });
    expect(airtable).toMatchObject({ status: 400, message: expect.stringMatching(/^AIRTABLE_BASE_URL refused by the outbound policy: /) });
    const wiki = await refused("confluence", { baseUrl: "http://10.3.3.3/wiki", spaceKey: "S", credential: "c" }, {});
    expect(wiki).toMatchObject({ status: 400, message: expect.stringContaining("10.3.3.3 is a private address") });
    const api = await refused("apiLoader", { url: "http://169.254.169.254/latest/meta-data" }, {});
    expect(api).toMatchObject({ status: 400, message: expect.stringContaining("169.254.169.254 is a link-local address") });
    const fire = await refused("fireCrawl", { crawlerType: "scrape", url: "https://a.example", credential: "c" }, {});
    expect(fire).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^fireCrawlApi credential firecrawlApiUrl refused by the outbound policy: /),
    });
    expect(fire?.message).not.toContain("fc-secret-key");
  });
});

describe("embeddings, vector stores and memories", () => {
  it("a document store upsert with openAIEmbeddings basepath on loopback (production) is a 400 naming it; nothing is stored", async () => {
    const cred = await openAICredential("sk-emb");
    const store = await newStore();
    const m = marker();
    const embedding = { name: "openAIEmbeddings", config: { credential: cred, basepath: `${standinUrl()}/v1`, modelName: "m" } };
    await withVars(PRODUCTION, async () => {
      const res = await call("POST", `/document-store/upsert/${store.id}`, {
        body: { loader: { name: "plainText", config: { text: `embed ${m}` } }, embedding, vectorStore: { name: "localVectorStore" } },
      });
      const err = await expectError(res, 400);
      expect(err.message).toMatch(/^openAIEmbeddings basepath refused by the outbound policy: 127\.0\.0\.1 is a loopback address/);
    });
    expect(await standinRequests(m)).toEqual([]);
    const saved = await json("GET", `/document-store/store/${store.id}`);
    expect(saved.totalChunks ?? 0).toBe(0);
  });

  it("embeddings nodes: a credential's basePath, localAI's basePath", async () => {
    const refused = (name: string, config: Record<string, unknown>, credential: Record<string, unknown> = {}) =>
      buildEmbeddings(name, config, { env: PRODUCTION, getCredential: async () => credential }).then(
        () => undefined,
        (e: { message: string }) => e.message,
      );
    expect(await refused("openAIEmbeddings", { credential: "c" }, { basePath: "http://169.254.169.254/v1" })).toMatch(
      /^openAIApi credential basePath refused by the outbound policy: /,
    );
    expect(await refused("localAIEmbeddings", { basePath: "http://127.0.0.1:8080/v1" })).toMatch(
      /^localAIEmbeddings basePath refused by the outbound policy: /,
    );
  });

  it("the hosted embeddings nodes: Mistral's overrideEndpoint, Voyage's credential endpoint, the services' vars", async () => {
    const refused = (name: string, config: Record<string, unknown>, credential: Record<string, unknown> = {}, env = {}) =>
      buildEmbeddings(name, config, { env: { ...PRODUCTION, ...env }, getCredential: async () => credential }).then(
        () => undefined,
        (e: { message: string }) => e.message,
      );
    expect(await refused("mistralAIEmbeddings", { overrideEndpoint: "http://10.0.0.3" })).toMatch(
      /^mistralAIEmbeddings overrideEndpoint refused by the outbound policy: 10\.0\.0\.3 is a private address/,
    );
    expect(await refused("voyageAIEmbeddings", { credential: "c" }, { endpoint: "http://169.254.169.254/v1/embeddings" })).toMatch(
      /^voyageAIApi credential endpoint refused by the outbound policy: 169\.254\.169\.254 is a link-local address/,
    );
    for (const [node, env, field] of [
      ["togetherAIEmbedding", { TOGETHER_BASE_URL: "http://10.1.1.4/v1" }, "TOGETHER_BASE_URL"],
      ["jinaEmbeddings", { JINA_EMBEDDINGS_BASE_URL: "http://192.168.7.7/v1" }, "JINA_EMBEDDINGS_BASE_URL"],
      ["cohereEmbeddings", { COHERE_EMBEDDINGS_BASE_URL: "http://[fd00::2]" }, "COHERE_EMBEDDINGS_BASE_URL"],
      ["baiduQianfanEmbeddings", { BAIDU_QIANFAN_BASE_URL: "http://10.1.1.24" }, "BAIDU_QIANFAN_BASE_URL"],
      ["googleGenerativeAiEmbeddings", { GOOGLE_GENERATIVE_AI_BASE_URL: "http://127.0.0.1:9" }, "GOOGLE_GENERATIVE_AI_BASE_URL"],
      ["huggingFaceInferenceEmbeddings", { HUGGINGFACE_BASE_URL: "http://10.4.4.4" }, "HUGGINGFACE_BASE_URL"],
      ["AWSBedrockEmbeddings", { AWS_BEDROCK_BASE_URL: "http://10.4.4.5" }, "AWS_BEDROCK_BASE_URL"],
    ] as const)
      expect(await refused(node, {}, {}, env), node).toMatch(new RegExp(`^${field} refused by the outbound policy: `));
  });

  it("azureOpenAIEmbeddings' basepath, huggingFaceInferenceEmbeddings' endpoint, inputModerationOpenAI's base URL", async () => {
    const refused = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: { status: number; message: string }) => e,
      );
    const deps = (credential: Record<string, unknown>, env = {}) => ({
      env: { ...PRODUCTION, ...env },
      getCredential: async () => credential,
    });
    const azure = await refused(
      buildEmbeddings(
        "azureOpenAIEmbeddings",
        { credential: "c", basepath: "http://10.5.5.5/openai/deployments" },
        deps({ azureOpenAIApiDeploymentName: "d" }),
      ),
    );
    expect(azure?.status).toBe(400);
    expect(azure?.message).toMatch(/^azureOpenAIEmbeddings basepath refused by the outbound policy: 10\.5\.5\.5 is a private address/);
    const hf = await refused(buildEmbeddings("huggingFaceInferenceEmbeddings", { endpoint: "http://169.254.169.254/embed" }, deps({})));
    expect(hf?.message).toMatch(/^huggingFaceInferenceEmbeddings endpoint refused by the outbound policy: /);
    const moderation = await refused(
      openAIModeration({}, deps({}, { OPENAI_BASE_URL: "http://192.168.3.3/v1", OPENAI_API_KEY: "k" }), "inputModerationOpenAI"),
    );
    expect(moderation?.status).toBe(400);
    expect(moderation?.message).toMatch(/^OPENAI_BASE_URL refused by the outbound policy: 192\.168\.3\.3 is a private address/);
  });

  it("the reranker retriever nodes: the rerank services' vars (a private base URL is a 400, nothing sent)", () => {
    for (const [node, env, field] of [
      ["cohereRerankRetriever", { COHERE_RERANK_BASE_URL: "http://10.2.2.2" }, "COHERE_RERANK_BASE_URL"],
      ["JinaRerankRetriever", { JINA_RERANK_BASE_URL: "http://192.168.1.9/v1" }, "JINA_RERANK_BASE_URL"],
      ["voyageAIRerankRetriever", { VOYAGE_RERANK_BASE_URL: "http://169.254.169.254" }, "VOYAGE_RERANK_BASE_URL"],
    ] as const) {
      const build = () => buildReranker(node, { env: { ...PRODUCTION, ...env }, credential: { apiKey: "k" }, topN: 2 });
      expect(build, node).toThrow(new RegExp(`^${field} refused by the outbound policy: `));
    }
    // Unset: the service's public API, which the policy allows.
    expect(() => buildReranker("cohereRerankRetriever", { env: PRODUCTION, credential: {}, topN: 2 })).not.toThrow();
    // AzureRerankRetriever: its credential's whole endpoint URL.
    const azure = { azureFoundryApiKey: "k", azureFoundryEndpoint: "http://10.2.2.3/providers/cohere/v2/rerank" };
    expect(() => buildReranker("AzureRerankRetriever", { env: PRODUCTION, credential: azure, topN: 2 })).toThrow(
      /^azureFoundryApi credential azureFoundryEndpoint refused by the outbound policy: /,
    );
  });

  it("promptLangFuse in a chatflow: its langfuseApi credential's endpoint on a private address is a 400", async () => {
    const credential = await credentialWith("langfuseApi", {
      langFusePublicKey: "pk",
      langFuseSecretKey: "sk",
      langFuseEndpoint: "http://10.8.8.8:3000",
    });
    const flowData = flow([
      ["prompt_0", "promptLangFuse", "Prompts", { template: "p", credential }],
      ["model_0", "chatOpenAI", "Chat Models", { modelName: "m", basepath: `${standinUrl()}/v1` }],
      ["chain_0", "llmChain", "Chains", { model: ref("model_0"), prompt: ref("prompt_0") }],
    ] as never);
    const id = (await json("POST", "/chatflows", { body: { name: "langfuse-prompt", flowData } })).id;
    const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "hi" } }), 400);
    expect(err.message).toMatch(
      /^langfuseApi credential langFuseEndpoint refused by the outbound policy: 10\.8\.8\.8 is a private address/,
    );
  });

  it("AWS services (Bedrock Agent Runtime, SNS, DynamoDB, S3, Kendra): their base URL vars, s3Directory's serverUrl", async () => {
    const creds = { accessKeyId: "AKIA", secretAccessKey: "secret" };
    for (const service of Object.values(AWS_SERVICES)) {
      const build = () => awsClient(service, "us-east-1", creds, { ...PRODUCTION, [service.envVar]: "http://10.3.3.3" });
      expect(build, service.envVar).toThrow(new RegExp(`^${service.envVar} refused by the outbound policy: `));
      // Unset: https://<service>.<region>.amazonaws.com, which the policy allows.
      expect(awsClient(service, "us-east-1", creds, PRODUCTION).base).toBe(`https://${service.prefix}.us-east-1.amazonaws.com`);
    }
    const s3 = (config: Record<string, unknown>) =>
      loadDocuments("s3Directory", {
        config: { bucketName: "docs", credential: "c", ...config },
        files: [],
        outbound: {},
        maxBytes: 1 << 20,
        limits: workLimits({}),
        getCredential: async () => ({ awsKey: "AKIA", awsSecret: "secret" }),
        services: { ENVIRONMENT: "production" },
      }).then(
        () => undefined,
        (e: { status: number; message: string }) => e,
      );
    const refused = await s3({ serverUrl: "http://169.254.169.254" });
    expect(refused?.status).toBe(400);
    expect(refused?.message).toMatch(/^s3Directory serverUrl refused by the outbound policy: /);
  });

  it("the Microsoft Graph tools (microsoftOutlook, microsoftTeams): MICROSOFT_GRAPH_BASE_URL on a private address is a 400", async () => {
    for (const [node, inputs] of [
      ["microsoftOutlook", { outlookType: "calendar", calendarActions: ["listCalendars"] }],
      ["microsoftTeams", { teamsType: "chat", chatActions: ["listChats"] }],
    ] as const) {
      const ctx = (env: Record<string, string>) => ({ runtime: { providers: { ...PRODUCTION, ...env } } }) as never;
      const build = (env: Record<string, string>) => buildTool(node, { ...inputs, credential: "c" }, { ctx: ctx(env), label: node });
      await expect(build({ MICROSOFT_GRAPH_BASE_URL: "http://10.6.6.6/v1.0" }), node).rejects.toThrow(
        /^MICROSOFT_GRAPH_BASE_URL refused by the outbound policy: 10\.6\.6\.6 is a private address/,
      );
      // Unset: https://graph.microsoft.com/v1.0, which the policy allows.
      await expect(build({})).resolves.toHaveLength(1);
    }
  });

  it("codeInterpreterE2B: E2B_API_URL and E2B_SANDBOX_URL on a private address are a 400", async () => {
    const ctx = (env: Record<string, string>) => ({ runtime: { providers: { ...PRODUCTION, ...env } } }) as never;
    const build = (env: Record<string, string>) => buildTool("codeInterpreterE2B", { credential: "c" }, { ctx: ctx(env), label: "e2b" });
    for (const [field, value] of [
      ["E2B_API_URL", "http://10.6.6.11"],
      ["E2B_SANDBOX_URL", "http://10.6.6.11/{port}-{sandboxId}"],
    ]) {
      await expect(build({ [field]: value }), field).rejects.toThrow(
        new RegExp(`^${field} refused by the outbound policy: 10\\.6\\.6\\.11 is a private address`),
      );
    }
    // Unset: https://api.e2b.app and https://49999-<id>.e2b.app, which the policy allows.
    await expect(build({})).resolves.toMatchObject({ name: "code_interpreter" });
  });

  it("gmail and googleCalendarTool: GMAIL_BASE_URL / GOOGLE_CALENDAR_BASE_URL on a private address is a 400", async () => {
    for (const [node, inputs, field] of [
      ["gmail", { gmailType: "labels", labelActions: ["listLabels"] }, "GMAIL_BASE_URL"],
      ["googleCalendarTool", { calendarType: "freebusy", freebusyActions: ["queryFreebusy"] }, "GOOGLE_CALENDAR_BASE_URL"],
    ] as const) {
      const ctx = (env: Record<string, string>) => ({ runtime: { providers: { ...PRODUCTION, ...env } } }) as never;
      const build = (env: Record<string, string>) => buildTool(node, { ...inputs, credential: "c" }, { ctx: ctx(env), label: node });
      await expect(build({ [field]: "http://10.6.6.7" }), node).rejects.toThrow(
        new RegExp(`^${field} refused by the outbound policy: 10\\.6\\.6\\.7 is a private address`),
      );
      // Unset: Google's public hosts, which the policy allows.
      await expect(build({})).resolves.toHaveLength(1);
    }
  });

  it("googleDriveTool, googleSheetsTool and googleDocsTool: their *_BASE_URL on a private address is a 400", async () => {
    for (const [node, inputs, field] of [
      ["googleDriveTool", { driveType: "file", fileActions: ["getFile"] }, "GOOGLE_DRIVE_BASE_URL"],
      ["googleSheetsTool", { sheetsType: "values", valuesActions: ["getValues"] }, "GOOGLE_SHEETS_BASE_URL"],
      ["googleDocsTool", { actions: ["getDocument"] }, "GOOGLE_DOCS_BASE_URL"],
    ] as const) {
      const ctx = (env: Record<string, string>) => ({ runtime: { providers: { ...PRODUCTION, ...env } } }) as never;
      const build = (env: Record<string, string>) => buildTool(node, { ...inputs, credential: "c" }, { ctx: ctx(env), label: node });
      await expect(build({ [field]: "http://10.6.6.8" }), node).rejects.toThrow(
        new RegExp(`^${field} refused by the outbound policy: 10\\.6\\.6\\.8 is a private address`),
      );
      // Unset: Google's public hosts, which the policy allows.
      await expect(build({})).resolves.toHaveLength(1);
    }
  });

  it("pipedreamMCP and browserlessMCP: PIPEDREAM_BASE_URL, PIPEDREAM_MCP_BASE_URL, BROWSERLESS_MCP_BASE_URL private → 400", async () => {
    const getCredential = async () => ({ clientId: "c", clientSecret: "pd-s", projectId: "p", browserlessApiToken: "bl-s" });
    const pd = { appSlug: "slack", externalUserId: "u1", credential: "c" };
    for (const [node, inputs, field] of [
      ["pipedreamMCP", pd, "PIPEDREAM_BASE_URL"],
      ["pipedreamMCP", pd, "PIPEDREAM_MCP_BASE_URL"],
      ["browserlessMCP", { credential: "c" }, "BROWSERLESS_MCP_BASE_URL"],
    ] as const) {
      const ctx = { runtime: { outbound: {}, providers: { ...PRODUCTION, [field]: "http://10.6.6.9" } }, getCredential, vars: {} } as never;
      await expect(buildTool(node, inputs, { ctx, label: node }), field).rejects.toThrow(
        new RegExp(`^${field} refused by the outbound policy: 10\\.6\\.6\\.9 is a private address`),
      );
    }
  });

  it("githubMCP and slackMCP: GITHUB_MCP_BASE_URL, SLACK_MCP_BASE_URL, SLACK_API_BASE_URL private → 400", async () => {
    for (const [node, cred, field] of [
      ["githubMCP", { accessToken: "gh-s" }, "GITHUB_MCP_BASE_URL"],
      ["slackMCP", { access_token: "xoxp-s" }, "SLACK_MCP_BASE_URL"],
      ["slackMCP", { botToken: "xoxb-s", teamId: "T1" }, "SLACK_API_BASE_URL"],
    ] as const) {
      const getCredential = async () => cred;
      const ctx = { runtime: { outbound: {}, providers: { ...PRODUCTION, [field]: "http://10.6.6.9" } }, getCredential, vars: {} } as never;
      await expect(buildTool(node, { credential: "c", mcpActions: "[]" }, { ctx, label: node }), field).rejects.toThrow(
        new RegExp(`^${field} refused by the outbound policy: 10\\.6\\.6\\.9 is a private address`),
      );
    }
  });

  it("composio: COMPOSIO_BASE_URL private → 400 before any call", async () => {
    const getCredential = async () => ({ composioApi: "composio-s" });
    const ctx = {
      runtime: { outbound: {}, providers: { ...PRODUCTION, COMPOSIO_BASE_URL: "http://10.6.6.9" } },
      getCredential,
      vars: {},
    } as never;
    await expect(
      buildTool("composio", { credential: "c", appName: "github", actions: '["GITHUB_STAR"]' }, { ctx, label: "composio" }),
    ).rejects.toThrow(/^COMPOSIO_BASE_URL refused by the outbound policy: 10\.6\.6\.9 is a private address/);
  });

  it("stripeAgentTool: STRIPE_API_BASE_URL private → 400", async () => {
    const getCredential = async () => ({ stripeApiToken: "sk_test_ok_private" });
    const ctx = {
      runtime: { outbound: {}, providers: { ...PRODUCTION, STRIPE_API_BASE_URL: "http://10.6.6.9" } },
      getCredential,
      vars: {},
    };
    await expect(buildTool("stripeAgentTool", { credential: "c", balance: '["read"]' }, { ctx: ctx as never, label: "s" })).rejects.toThrow(
      /^STRIPE_API_BASE_URL refused by the outbound policy: 10\.6\.6\.9 is a private address/,
    );
  });

  it("braveSearchMCP and postgreSQLMCP: BRAVE_SEARCH_BASE_URL and the PostgresUrl credential's host private → 400", async () => {
    const brave = { runtime: { outbound: {}, providers: { ...PRODUCTION, BRAVE_SEARCH_BASE_URL: "http://10.6.6.9" } } };
    const getBrave = async () => ({ braveApiKey: "brave-s" });
    await expect(
      buildTool(
        "braveSearchMCP",
        { credential: "c", mcpActions: "[]" },
        { ctx: { ...brave, getCredential: getBrave, vars: {} } as never, label: "b" },
      ),
    ).rejects.toThrow(/^BRAVE_SEARCH_BASE_URL refused by the outbound policy: 10\.6\.6\.9 is a private address/);
    for (const host of ["10.6.6.9", "127.0.0.1", "169.254.169.254"]) {
      const getCredential = async () => ({ postgresUrl: `postgresql://u:pg-s@${host}:5432/db` });
      const ctx = { runtime: { outbound: {}, providers: PRODUCTION }, getCredential, vars: {} } as never;
      const err = await buildTool("postgreSQLMCP", { credential: "c", mcpActions: "[]" }, { ctx, label: "pg" }).catch((e: Error) => e);
      expect(err, host).toMatchObject({ status: 400, message: expect.stringContaining("refused by the outbound policy") });
      expect((err as Error).message).not.toContain("pg-s");
    }
  });

  it("jiraTool: a jiraHost on a private, loopback or metadata address is a 400 before the credential is read", async () => {
    const getCredential = async () => ({ username: "u@example.com", accessToken: "jira-secret-token" });
    const ctx = { runtime: { outbound: {}, providers: PRODUCTION }, getCredential } as never;
    const build = (jiraHost: string) =>
      buildTool("jiraTool", { jiraHost, jiraType: "issues", issueActions: "getIssue", credential: "c" }, { ctx, label: "jiraTool" });
    for (const [host, why] of [
      ["http://10.9.9.9", "private"],
      ["http://127.0.0.1:8080", "loopback"],
      ["http://169.254.169.254", "link-local"],
    ]) {
      const err = await build(host).then(
        () => undefined,
        (e: { status: number; message: string }) => e,
      );
      expect(err, host).toMatchObject({ status: 400, message: expect.stringContaining(`is a ${why} address`) });
      expect(err?.message).not.toContain("jira-secret-token");
    }
    await expect(build("https://example.atlassian.net")).resolves.toHaveLength(1);
  });

  it("ollamaEmbeddings in a chatflow: its baseUrl on a private address is a 400", async () => {
    const flowData = flow([
      ["emb_0", "ollamaEmbeddings", "Embeddings", { baseUrl: "http://10.9.9.9:11434" }],
      ["vs_0", "memoryVectorStore", "Vector Stores", { embeddings: ref("emb_0") }, { output: "retriever" }],
      ["model_0", "chatOpenAI", "Chat Models", { modelName: "m", basepath: `${standinUrl()}/v1` }],
      ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref("vs_0") }],
    ] as never);
    const id = (await json("POST", "/chatflows", { body: { name: "ollama-emb", flowData } })).id;
    const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "hi" } }), 400);
    expect(err.message).toMatch(/^ollamaEmbeddings baseUrl refused by the outbound policy: 10\.9\.9\.9 is a private address/);
  });

  it("pinecone: a pineconeIndexHost input, and an index host describe_index answers, are refused", async () => {
    const env = { ...PRODUCTION, PINECONE_BASE_URL: inject("pineconeUrl") };
    const ctx = {
      env: env as never,
      db: db(),
      embeddings: new LocalHashEmbeddings({ dims: 8 }),
      namespace: "ns",
      getCredential: async () => ({ pineconeApiKey: "pc-key" }),
    };
    expect(() => buildVectorStore("pinecone", { pineconeIndex: "i", pineconeIndexHost: "10.0.0.5", credential: "c" }, ctx)).toThrow(
      /^pinecone pineconeIndexHost refused by the outbound policy: 10\.0\.0\.5 is a private address/,
    );
    // The control plane (PINECONE_BASE_URL, a deployment var) is loopback here: allowed by listing it; its answer is not.
    const allowed = { ...ctx, env: { ...env, OUTBOUND_ALLOW: new URL(inject("pineconeUrl")).host } as never };
    const store = buildVectorStore("pinecone", { pineconeIndex: "metadata", credential: "c" }, allowed);
    await expect(store.similaritySearch("anything", 1)).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(
        /^the index host Pinecone's describe_index answered refused by the outbound policy: 169\.254\.169\.254 is a link-local address/,
      ),
    });
  });

  it("qdrant: a qdrantServerUrl at a private, loopback or metadata address is refused when the store is built", () => {
    const ctx = { env: PRODUCTION as never, db: db(), embeddings: new LocalHashEmbeddings({ dims: 8 }), namespace: "ns" };
    const build = (url: string) => () => buildVectorStore("qdrant", { qdrantServerUrl: url, qdrantCollection: "c" }, ctx);
    expect(build("http://10.0.0.5:6333")).toThrow(
      /^qdrant qdrantServerUrl refused by the outbound policy: 10\.0\.0\.5 is a private address/,
    );
    expect(build("http://127.0.0.1:6333")).toThrow(
      /^qdrant qdrantServerUrl refused by the outbound policy: 127\.0\.0\.1 is a loopback address/,
    );
    expect(build("http://169.254.169.254")).toThrow(
      /^qdrant qdrantServerUrl refused by the outbound policy: 169\.254\.169\.254 is a link-local/,
    );
    expect(build("https://xyz.cloud.qdrant.io:6333")).not.toThrow();
  });

  it("vectara: VECTARA_BASE_URL at a private or metadata address is refused when the store is built, naming the var", () => {
    const ctx = (url: string) => ({
      env: { ...PRODUCTION, VECTARA_BASE_URL: url } as never,
      db: db(),
      embeddings: new LocalHashEmbeddings({}),
      namespace: "ns",
    });
    const build = (url: string) => () => buildVectorStore("vectara", { credential: "c" }, ctx(url));
    expect(build("http://10.0.0.7")).toThrow(/^VECTARA_BASE_URL refused by the outbound policy: 10\.0\.0\.7 is a private address/);
    expect(build("http://169.254.169.254")).toThrow(/^VECTARA_BASE_URL refused by the outbound policy: 169\.254\.169\.254 is a link-local/);
    expect(build("https://api.vectara.io")).not.toThrow();
  });

  it("milvus: a milvusServerUrl (with or without a scheme) at a private, loopback or metadata address is refused when the store is built", () => {
    const ctx = { env: PRODUCTION as never, db: db(), embeddings: new LocalHashEmbeddings({ dims: 8 }), namespace: "ns" };
    const build = (url: string) => () => buildVectorStore("milvus", { milvusServerUrl: url, milvusCollection: "c" }, ctx);
    expect(build("http://10.0.0.5:19530")).toThrow(
      /^milvus milvusServerUrl refused by the outbound policy: 10\.0\.0\.5 is a private address/,
    );
    expect(build("127.0.0.1:19530")).toThrow(/^milvus milvusServerUrl refused by the outbound policy: 127\.0\.0\.1 is a loopback address/);
    expect(build("http://169.254.169.254")).toThrow(
      /^milvus milvusServerUrl refused by the outbound policy: 169\.254\.169\.254 is a link-local/,
    );
    expect(build("https://in03-abc.api.gcp-us-west1.zillizcloud.com")).not.toThrow();
  });

  it("Astra: the AstraDBApi credential's dbEndPoint at a private, loopback or metadata address is refused at the first call", async () => {
    const search = (dbEndPoint: string) => {
      const ctx = {
        env: PRODUCTION as never,
        db: db(),
        embeddings: new LocalHashEmbeddings({ dims: 8 }),
        namespace: "ns",
        getCredential: async () => ({ applicationToken: "AstraCS:t", dbEndPoint }),
      };
      return buildVectorStore("Astra", { credential: "c", astraCollection: "c" }, ctx).similaritySearch("q", 1);
    };
    const field = "AstraDBApi credential dbEndPoint refused by the outbound policy";
    await expect(search("https://10.0.0.5")).rejects.toThrow(new RegExp(`^${field}: 10\\.0\\.0\\.5 is a private address`));
    await expect(search("http://127.0.0.1:8181")).rejects.toThrow(new RegExp(`^${field}: 127\\.0\\.0\\.1 is a loopback address`));
    await expect(search("http://169.254.169.254")).rejects.toThrow(new RegExp(`^${field}: 169\\.254\\.169\\.254 is a link-local`));
  });

  it("couchbase: the couchbaseApi credential's connectionString (its first host) at a private, loopback or metadata address is refused", async () => {
    const search = (connectionString: string, env: Record<string, string> = PRODUCTION) => {
      const ctx = {
        env: env as never,
        db: db(),
        embeddings: new LocalHashEmbeddings({ dims: 8 }),
        namespace: "ns",
        getCredential: async () => ({ connectionString, username: "u", password: "p" }),
      };
      const inputs = { credential: "c", bucketName: "b", scopeName: "s", collectionName: "c", indexName: "i" };
      return buildVectorStore("couchbase", inputs, ctx).similaritySearch("q", 1);
    };
    const field = "couchbaseApi credential connectionString refused by the outbound policy";
    await expect(search("couchbases://10.0.0.5")).rejects.toThrow(new RegExp(`^${field}: 10\\.0\\.0\\.5 is a private address`));
    await expect(search("couchbase://127.0.0.1:11210,db.example.com")).rejects.toThrow(
      new RegExp(`^${field}: 127\\.0\\.0\\.1 is a loopback address`),
    );
    await expect(search("couchbase://[::1]")).rejects.toThrow(new RegExp(`^${field}: \\[::1\\] is a loopback`));
    await expect(search("couchbase://169.254.169.254")).rejects.toThrow(new RegExp(`^${field}: 169\\.254\\.169\\.254 is a link-local`));
  });

  it("chroma, supabase: chromaURL and supabaseProjUrl at a private, loopback or metadata address are refused when the store is built", () => {
    const ctx = { env: PRODUCTION as never, db: db(), embeddings: new LocalHashEmbeddings({ dims: 8 }), namespace: "ns" };
    const chroma = (url: string) => () => buildVectorStore("chroma", { chromaURL: url, collectionName: "c" }, ctx);
    expect(chroma("http://10.0.0.5:8000")).toThrow(/^chroma chromaURL refused by the outbound policy: 10\.0\.0\.5 is a private address/);
    expect(chroma("http://127.0.0.1:8000")).toThrow(/^chroma chromaURL refused by the outbound policy: 127\.0\.0\.1 is a loopback address/);
    expect(chroma("https://api.trychroma.com")).not.toThrow();
    const supabase = (url: string) => () => buildVectorStore("supabase", { supabaseProjUrl: url, tableName: "t", queryName: "q" }, ctx);
    expect(supabase("http://169.254.169.254")).toThrow(
      /^supabase supabaseProjUrl refused by the outbound policy: 169\.254\.169\.254 is a link-local/,
    );
    expect(supabase("http://192.168.1.9:54321")).toThrow(
      /^supabase supabaseProjUrl refused by the outbound policy: 192\.168\.1\.9 is a private/,
    );
    expect(supabase("https://xyz.supabase.co")).not.toThrow();
  });

  it("zep's baseURL (when built), ZEP_CLOUD_BASE_URL (zepCloud, first use) and mem0's MEM0_BASE_URL are under the rule", async () => {
    const ctx = (env: Record<string, string>) => ({
      env: { ...PRODUCTION, ...env } as never,
      db: db(),
      embeddings: new LocalHashEmbeddings({ dims: 8 }),
      namespace: "ns",
      getCredential: async () => ({ apiKey: "k" }),
    });
    expect(() => buildVectorStore("zep", { baseURL: "http://10.0.0.5:8000", zepCollection: "c" }, ctx({}))).toThrow(
      /^zep baseURL refused by the outbound policy: 10\.0\.0\.5 is a private address/,
    );
    expect(() => buildVectorStore("zep", { baseURL: "https://zep.example.com", zepCollection: "c" }, ctx({}))).not.toThrow();
    const cloud = buildVectorStore(
      "zepCloud",
      { credential: "c", zepCollection: "c" },
      ctx({ ZEP_CLOUD_BASE_URL: "http://192.168.2.2/api/v2" }),
    );
    await expect(cloud.similaritySearch("hello", 1)).rejects.toThrow(
      /^ZEP_CLOUD_BASE_URL refused by the outbound policy: 192\.168\.2\.2 is a private address/,
    );
    const { mem0Client } = await import("../../src/providers/memory/mem0");
    expect(() => mem0Client({ env: { ...PRODUCTION, MEM0_BASE_URL: "http://169.254.169.254" } as never, apiKey: "k" })).toThrow(
      /^MEM0_BASE_URL refused by the outbound policy: 169\.254\.169\.254 is a link-local/,
    );
  });

  it("postgres (pgvector): host and port at a private, loopback or metadata address are refused when the store is built", () => {
    const ctx = { env: PRODUCTION as never, db: db(), embeddings: new LocalHashEmbeddings({ dims: 8 }), namespace: "ns" };
    const pg = (host: string, port?: number) => () => buildVectorStore("postgres", { host, port, database: "d" }, ctx);
    expect(pg("10.0.0.5")).toThrow(/^postgres host refused by the outbound policy: 10\.0\.0\.5 is a private address/);
    expect(pg("0x7f000001", 6543)).toThrow(/^postgres host refused by the outbound policy: 127\.0\.0\.1 is a loopback address/);
    expect(pg("169.254.169.254")).toThrow(/^postgres host refused by the outbound policy: 169\.254\.169\.254 is a link-local/);
    expect(pg("db.example.com")).not.toThrow();
  });

  it("singlestore and sqlDatabaseChain's MySQL url: hosts at a private, loopback or metadata address are refused", async () => {
    const ctx = { env: PRODUCTION as never, db: db(), embeddings: new LocalHashEmbeddings({ dims: 8 }), namespace: "ns" };
    const s2 = (host: string) => () => buildVectorStore("singlestore", { host, database: "d" }, ctx);
    expect(s2("10.0.0.5")).toThrow(/^singlestore host refused by the outbound policy: 10\.0\.0\.5 is a private address/);
    expect(s2("0x7f000001:3307")).toThrow(/^singlestore host refused by the outbound policy: 127\.0\.0\.1 is a loopback address/);
    expect(s2("169.254.169.254?ssl=true")).toThrow(/^singlestore host refused by the outbound policy: 169\.254\.169\.254 is a link-local/);
    expect(s2("svc-1.svc.singlestore.com")).not.toThrow();
    const { openSqlDatabase, sqlDepsFrom } = await import("../../src/providers/sql/registry");
    const mysql = (url: string) => () => openSqlDatabase("mysql", url, false, sqlDepsFrom(PRODUCTION as never));
    expect(mysql("mysql://u:p@10.0.0.5/db")).toThrow(
      /^Sql Database Chain url refused by the outbound policy: 10\.0\.0\.5 is a private address/,
    );
    expect(mysql("[::1]:3306/db")).toThrow(/^Sql Database Chain url refused by the outbound policy: \[::1\] is a loopback address/);
    expect(mysql("mysql://u:p@db.example.com/db")).not.toThrow();
  });

  it("chroma without chromaURL (Flowise's localhost default) and upstash's credential URL are refused when first used", async () => {
    const ctx = (credential: Record<string, unknown>) => ({
      env: PRODUCTION as never,
      db: db(),
      embeddings: new LocalHashEmbeddings({ dims: 8 }),
      namespace: "ns",
      getCredential: async () => credential,
    });
    const chroma = buildVectorStore("chroma", { collectionName: "c", credential: "c" }, ctx({}));
    await expect(chroma.similaritySearch("hello", 1)).rejects.toThrow(
      /^chroma's default server \(no chromaURL\) refused by the outbound policy: localhost/,
    );
    const upstash = buildVectorStore(
      "upstash",
      { credential: "c" },
      ctx({ UPSTASH_VECTOR_REST_URL: "http://10.0.0.8", UPSTASH_VECTOR_REST_TOKEN: "t" }),
    );
    await expect(upstash.similaritySearch("hello", 1)).rejects.toThrow(
      /^upstashVectorApi credential UPSTASH_VECTOR_REST_URL refused by the outbound policy: 10\.0\.0\.8 is a private address/,
    );
  });

  it("Neo4j: the neo4jApi credential's url is under the rule (a Bolt address, every scheme)", () => {
    const graph = (url: string) => () =>
      new Neo4jGraph({ url, username: "neo4j", password: "pw", policy: { field: "neo4jApi credential url", env: PRODUCTION } });
    expect(graph("neo4j://10.0.0.7:7687")).toThrow(
      /^neo4jApi credential url refused by the outbound policy: 10\.0\.0\.7 is a private address/,
    );
    expect(graph("bolt+s://[::1]")).toThrow(/^neo4jApi credential url refused by the outbound policy: \[::1\] is a loopback address/);
    expect(graph("neo4j+s://169.254.169.254:7687")).toThrow(/^neo4jApi credential url refused by the outbound policy: /);
    expect(graph("bolt://0x7f000001")).toThrow(
      /^neo4jApi credential url refused by the outbound policy: 127\.0\.0\.1 is a loopback address/,
    );
  });

  it("Redis: redisUrl, redisCacheHost and Upstash's baseURL are under the rule (TCP addresses too)", () => {
    expect(() => redisFromCredential({ redisUrl: "redis://10.0.0.7:6379" }, PRODUCTION)).toThrow(
      /^redisCacheUrlApi credential redisUrl refused by the outbound policy: 10\.0\.0\.7 is a private address/,
    );
    expect(() => redisFromCredential({ redisUrl: "rediss://[::1]:6380" }, PRODUCTION)).toThrow(
      /^redisCacheUrlApi credential redisUrl refused by the outbound policy: \[::1\] is a loopback address/,
    );
    expect(() => redisFromCredential({ redisUrl: "https://default:tok@169.254.169.254" }, PRODUCTION)).toThrow(
      /^redisCacheUrlApi credential redisUrl refused by the outbound policy: /,
    );
    expect(() => redisFromCredential({ redisCacheHost: "0x7f000001", redisCachePort: "6379" }, PRODUCTION)).toThrow(
      /^redisCacheApi credential redisCacheHost refused by the outbound policy: 127\.0\.0\.1 is a loopback address/,
    );
    expect(() => upstashFromInputs("http://192.168.5.5", { upstashRestToken: "t" }, PRODUCTION)).toThrow(
      /^UpstashRedisBackedChatMemory baseURL refused by the outbound policy: 192\.168\.5\.5 is a private address/,
    );
    // Loopback in a local environment, a listed host in production:
    expect(redisFromCredential({ redisUrl: "redis://127.0.0.1:6379" }, { ENVIRONMENT: "development" })).toBeDefined();
    expect(redisFromCredential({ redisCacheHost: "10.0.0.7" }, { ...PRODUCTION, OUTBOUND_ALLOW: "10.0.0.7:6379" })).toBeDefined();
  });

  it("MongoDB: every host of mongoDBConnectUrl, a replica set's, and MONGODB_DOH_URL are under the rule (TCP addresses too)", async () => {
    const { mongoCollection } = await import("../../src/providers/mongodb");
    const names = { label: "m", databaseName: "d", collectionName: "c" };
    const open =
      (url: string, env: Record<string, string> = PRODUCTION) =>
      () =>
        mongoCollection({ mongoDBConnectUrl: url }, { ...names, env });
    expect(open("mongodb://u:p@10.0.0.7:27017/?authSource=admin")).toThrow(
      /^mongoDBUrlApi credential mongoDBConnectUrl refused by the outbound policy: 10\.0\.0\.7 is a private address/,
    );
    expect(open("mongodb://db.example.com:27017,0x7f000001:27018/?replicaSet=rs0")).toThrow(
      /^mongoDBUrlApi credential mongoDBConnectUrl refused by the outbound policy: 127\.0\.0\.1 is a loopback address/,
    );
    expect(open("mongodb://[::1]")).toThrow(
      /^mongoDBUrlApi credential mongoDBConnectUrl refused by the outbound policy: \[::1\] is a loopback/,
    );
    expect(open("mongodb://169.254.169.254")).toThrow(/refused by the outbound policy: 169\.254\.169\.254 is a link-local/);
    const srv = mongoCollection(
      { mongoDBConnectUrl: "mongodb+srv://u:p@cluster0.example.net/" },
      { ...names, env: { ...PRODUCTION, MONGODB_DOH_URL: "http://10.0.0.8/dns-query" } },
    );
    await expect(srv.session(async () => 1)).rejects.toThrow(
      /^MONGODB_DOH_URL refused by the outbound policy: 10\.0\.0\.8 is a private address/,
    );
    // Loopback in a local environment, a listed host in production:
    expect(open("mongodb://127.0.0.1:27017", { ENVIRONMENT: "development" })).not.toThrow();
    expect(open("mongodb://10.0.0.7", { ...PRODUCTION, OUTBOUND_ALLOW: "10.0.0.7:27017" })).not.toThrow();
  });

  it("RedisBackedChatMemory in a chatflow on loopback, in production: a 400 before the model is called", async () => {
    const cred = await credentialWith("redisCacheUrlApi", { redisUrl: inject("redisUrl") });
    const m = marker();
    const flowData = flow([
      ["mem_0", "RedisBackedChatMemory", "Memory", { credential: cred }],
      ["model_0", "chatOpenAI", "Chat Models", { modelName: "m", basepath: `${standinUrl()}/v1` }],
      ["chain_0", "conversationChain", "Chains", { model: ref("model_0"), memory: ref("mem_0") }],
    ] as never);
    const id = (await json("POST", "/chatflows", { body: { name: "redis-endpoint", flowData } })).id;
    const err = await withVars({ ...PRODUCTION, OUTBOUND_ALLOW: new URL(standinUrl()).host }, async () =>
      expectError(await call("POST", `/prediction/${id}`, { body: { question: m } }), 400),
    );
    expect(err.message).toMatch(/^redisCacheUrlApi credential redisUrl refused by the outbound policy: 127\.0\.0\.1 is a loopback address/);
    expect(await standinRequests(m)).toEqual([]);
  });
});

describe("saving a flow", () => {
  const llmFlow = (basepath: string) =>
    flow([
      ["model_0", "chatOpenAI", "Chat Models", { modelName: "m", basepath }],
      ["prompt_0", "promptTemplate", "Prompts", { template: "{question}" }],
      ["chain_0", "llmChain", "Chains", { model: ref("model_0"), prompt: ref("prompt_0") }],
    ] as never);

  it("a refused endpoint input is named in the saved record's warning (the flow is still saved)", async () => {
    const created = await json("POST", "/chatflows", { body: { name: "warn", flowData: llmFlow("http://10.0.0.8/v1") } });
    expect(created.warning).toMatch(/^model_0 basepath refused by the outbound policy: 10\.0\.0\.8 is a private address/);
    expect((await json("GET", `/chatflows/${created.id}`)).flowData).toContain("10.0.0.8");
    // Agentflow V2's nested model config too, on update:
    const agentflow = JSON.stringify({
      nodes: [
        {
          id: "llmAgentflow_0",
          data: {
            id: "llmAgentflow_0",
            name: "llmAgentflow",
            inputs: { llmModel: "chatOpenAI", llmModelConfig: { basepath: "http://169.254.169.254/v1" } },
          },
        },
      ],
      edges: [],
    });
    const updated = await json("PUT", `/chatflows/${created.id}`, { body: { flowData: agentflow } });
    expect(updated.warning).toMatch(/llmAgentflow_0 basepath refused by the outbound policy: 169\.254\.169\.254 is a link-local address/);
  });

  it("no warning for a public endpoint, a variable, or loopback outside production", async () => {
    expect(await json("POST", "/chatflows", { body: { name: "ok", flowData: llmFlow("https://llm.example.com/v1") } })).not.toHaveProperty(
      "warning",
    );
    expect(await json("POST", "/chatflows", { body: { name: "ok", flowData: llmFlow("{{$vars.modelUrl}}") } })).not.toHaveProperty(
      "warning",
    );
    expect(await json("POST", "/chatflows", { body: { name: "ok", flowData: llmFlow(`${standinUrl()}/v1`) } })).not.toHaveProperty(
      "warning",
    );
    const prod = await withVars(PRODUCTION, () =>
      json("POST", "/chatflows", { body: { name: "prod", flowData: llmFlow(`${standinUrl()}/v1`) } }),
    );
    expect(prod.warning).toMatch(/^model_0 basepath refused by the outbound policy: 127\.0\.0\.1 is a loopback address/);
  });
});
