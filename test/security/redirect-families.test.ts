// Issue 28, item 4, for every family that calls out with a credential: its real client (model,
// embeddings, vector store, memory, tracing, callback, MCP client, tool, loader) pointed at a base
// URL on loopback origin a that redirects (test/standin/redirector.mjs). Redirected to origin b, b
// never sees the credential (and a did: it was in play); redirected within a, the call works with
// it; six hops end in a clear error naming the limit. The rule itself: redirects.test.ts.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { deliverCallback, deliverFlowiseCallback } from "../../src/detached/callback";
import { callServiceJson } from "../../src/engine/tools/service";
import { withMcpSession } from "../../src/engine/tools/mcp/client";
import type { Env } from "../../src/env";
import { buildChatModel } from "../../src/providers/chat/registry";
import { LocalHashEmbeddings } from "../../src/providers/embeddings/local-hash";
import { buildEmbeddings } from "../../src/providers/embeddings/registry";
import { GithubApi } from "../../src/providers/loaders/github/api";
import { upstashFromInputs } from "../../src/providers/memory/redis";
import { buildVectorStore } from "../../src/providers/vectorstores/registry";
import { sendTrace } from "../../src/services/tracing/send";
import { credential, db, makeCtx } from "../engine/helpers";
import { hops, hopsOf, leaksTo, planId, via } from "./redirect-helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

const LOCAL = { ENVIRONMENT: "test" }; // the endpoint rule: loopback allowed under the test runner
const ALLOW_LOOPBACK = { OUTBOUND_ALLOW: "127.0.0.1" }; // the request rule: loopback listed

/** A chat model node whose inputs (`config(base)`) point it at `base`, asked one question. */
const chat =
  (node: string, config: (base: string) => Record<string, unknown>, secret: Record<string, unknown> = {}) =>
  async (base: string) => {
    const model = await buildChatModel(node, { credential: "c", ...config(base) }, { env: LOCAL, getCredential: async () => secret });
    await model.invoke("hello through redirects");
  };

/** A trace sent with `kind`'s credential at `base`; sendTrace only logs a failure, so the log is the error. */
const traced = (kind: "langsmith" | "otlp", data: (base: string) => Record<string, unknown>) => async (base: string) => {
  const name = kind === "otlp" ? "otlpApi" : "langsmithApi";
  const credentialId = await credential(name, data(base));
  const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
  const trace = { id: crypto.randomUUID(), name: "t", sessionId: "s", input: "q", output: "a", start: 1, end: 2, metadata: {}, spans: [] };
  await sendTrace({ db: db(), env: env as unknown as Env }, [{ kind, credentialId }], trace, new Set());
  const failure = logged.mock.calls.map((c) => String(c[0])).find((line) => line.includes("not sent") || line.includes("answered"));
  logged.mockRestore();
  if (failure) throw new Error(failure);
};

interface Family {
  name: string;
  /** The stand-in behind the redirects. */
  upstream: string;
  /** What must never reach origin b: the credential's value (or the name of a header a secret set). */
  secret: string;
  /** 307 for calls that POST (method and body kept), 302 for GETs. */
  status: 302 | 307;
  call(base: string): Promise<unknown>;
}

const families: Family[] = [
  {
    name: "OpenAI-compatible chat (chatOpenAI)",
    upstream: "openai",
    secret: "sk-redirect-openai",
    status: 307,
    call: chat("chatOpenAI", (base) => ({ modelName: "gpt-4o-mini", basepath: `${base}/v1` }), { openAIApiKey: "sk-redirect-openai" }),
  },
  {
    name: "Azure OpenAI (api-key header)",
    upstream: "openai",
    secret: "azure-redirect-key",
    status: 307,
    call: chat("azureChatOpenAI", (base) => ({ modelName: "gpt-4o-mini", basepath: `${base}/v1` }), {
      azureOpenAIApiKey: "azure-redirect-key",
      azureOpenAIApiInstanceName: "x",
      azureOpenAIApiDeploymentName: "d",
    }),
  },
  {
    name: "Anthropic (x-api-key)",
    upstream: "anthropic",
    secret: "sk-ant-redirect",
    status: 307,
    call: chat("chatAnthropic", (baseUrl) => ({ modelName: "claude-3-5-haiku-latest", baseUrl }), { anthropicApiKey: "sk-ant-redirect" }),
  },
  {
    name: "Gemini (x-goog-api-key)",
    upstream: "gemini",
    secret: "AIza-redirect",
    status: 307,
    call: chat("chatGoogleGenerativeAI", (baseUrl) => ({ modelName: "gemini-1.5-flash", baseUrl }), {
      googleGenerativeAPIKey: "AIza-redirect",
    }),
  },
  {
    name: "Ollama behind an auth proxy (baseOptions Authorization)",
    upstream: "openai",
    secret: "ollama-proxy-token",
    status: 307,
    call: chat("chatOllama", (base) => ({
      modelName: "llama3.2",
      baseUrl: `${base}/v1`,
      baseOptions: '{"Authorization":"Bearer ollama-proxy-token"}',
    })),
  },
  {
    name: "embeddings (openAIEmbeddings)",
    upstream: "openai",
    secret: "sk-redirect-embeddings",
    status: 307,
    call: async (base) => {
      const deps = { env: LOCAL, getCredential: async () => ({ openAIApiKey: "sk-redirect-embeddings" }) };
      await (await buildEmbeddings("openAIEmbeddings", { basepath: `${base}/v1`, modelName: "m", credential: "c" }, deps)).embedQuery("x");
    },
  },
  {
    name: "vector store (Pinecone, Api-Key)",
    upstream: "pinecone",
    secret: "pc-redirect-key",
    status: 307,
    call: async (base) => {
      const ctx = {
        env: LOCAL as never,
        db: db(),
        embeddings: new LocalHashEmbeddings({ dims: 8 }),
        namespace: "ns",
        getCredential: async () => ({ pineconeApiKey: "pc-redirect-key" }),
      };
      const config = { pineconeIndex: "redirects", pineconeIndexHost: `${base}/idx/redirects`, credential: "c" };
      await buildVectorStore("pinecone", config, ctx).similaritySearch("anything", 1);
    },
  },
  {
    name: "memory (Upstash Redis REST)",
    upstream: "upstash",
    secret: "upstash-token",
    status: 307,
    call: (base) => upstashFromInputs(base, { upstashRestToken: "upstash-token" }, LOCAL).pipeline([["PING"]]),
  },
  {
    name: "tracing (LangSmith, x-api-key)",
    upstream: "tracing",
    secret: "lsv2_redirect_key",
    status: 307,
    call: traced("langsmith", (base) => ({ langSmithApiKey: "lsv2_redirect_key", langSmithEndpoint: `${base}/langsmith` })),
  },
  {
    name: "tracing (OTLP, headers the owner typed)",
    upstream: "tracing",
    secret: "otlp-typed-secret",
    status: 307,
    call: traced("otlp", (base) => ({ otlpEndpoint: `${base}/otlp`, otlpHeaders: "x-team-token=otlp-typed-secret" })),
  },
  {
    name: "async run callback (X-Edgeflow-Signature)",
    upstream: "echo",
    secret: "x-edgeflow-signature",
    status: 307,
    call: (base) =>
      deliverCallback(`${base}/hook`, { status: "SUCCESS", chatId: "c", executionId: "e" }, { ...ALLOW_LOOPBACK, CALLBACK_SECRET: "cb" }),
  },
  {
    name: "webhook callback, Flowise's way (X-Flowise-Signature)",
    upstream: "echo",
    secret: "x-flowise-signature",
    status: 307,
    call: (base) =>
      deliverFlowiseCallback({ url: `${base}/hook`, secret: "fw" }, { status: "SUCCESS", chatId: "c", executionId: "e" }, ALLOW_LOOPBACK),
  },
  {
    name: "MCP client (customMCP headers)",
    upstream: "mcp",
    secret: "mcp-secret",
    status: 307,
    call: (base) =>
      withMcpSession(
        { url: `${base}/secure/mcp`, headers: { Authorization: "Bearer mcp-secret" } },
        { policy: ALLOW_LOOPBACK, timeoutMs: 10_000 },
        (client) => client.listTools(),
      ),
  },
  {
    name: "search tool (Tavily, through callService)",
    upstream: "tools",
    secret: "tvly-redirect",
    status: 307,
    call: (base) =>
      callServiceJson(
        {
          service: "Tavily",
          field: "TAVILY_BASE_URL",
          url: `${base}/tavily/search`,
          init: { method: "POST", headers: { Authorization: "Bearer tvly-redirect" }, body: '{"query":"q"}' },
          secrets: ["tvly-redirect"],
        },
        makeCtx("q"),
      ),
  },
  {
    name: "github loader (GITHUB_API_BASE_URL, a private repository)",
    upstream: "github",
    secret: "ghp-stand-in-token",
    status: 302,
    call: (base) =>
      new GithubApi({
        apiUrl: base,
        token: "ghp-stand-in-token",
        maxRetries: 0,
        rule: { endpoint: { field: "GITHUB_API_BASE_URL", env: LOCAL } },
      }).tree("acme", "private", "main"),
  },
];

describe.each(families)("$name", (family) => {
  it("redirected to another origin: that origin never sees the credential", async () => {
    const id = planId();
    await family.call(via(family.upstream, id, `${family.status}b`)).catch(() => undefined);
    const seen = await hopsOf(id);
    // Origin a got it (the call was made with the credential), origin b was reached without it.
    expect(seen.some((h) => h.server === "a" && JSON.stringify(h.headers).includes(family.secret))).toBe(true);
    expect(seen.some((h) => h.server === "b")).toBe(true);
    expect(await leaksTo(id, family.secret)).toEqual([]);
  });

  it("redirected within the same origin: the call works, with the credential", async () => {
    const id = planId();
    await family.call(via(family.upstream, id, `${family.status}a`));
    const reached = (await hopsOf(id)).filter((h) => h.plan === "-");
    expect(reached.length).toBeGreaterThan(0);
    for (const hop of reached) expect(JSON.stringify(hop.headers)).toContain(family.secret);
  });

  it("six hops end in a clear error naming the limit", async () => {
    const err = (await family.call(via(family.upstream, planId(), hops(6, family.status))).then(
      () => new Error("expected a failure"),
      (e: unknown) => e,
    )) as Error & { status?: number };
    expect(err.message).toMatch(/redirected more than 5 times \(at most 5 redirects are followed\)/);
    if (err.status !== undefined) expect(err.status).toBe(502);
  });
});
