// The search tools (serpAPI, serper, googleCustomSearch, braveSearchAPI, tavilyAPI) against the
// services stand-in (test/standin/services.mjs): what each service received (path, key, query),
// what the model gets back, and failures as readable tool errors that never carry the key. Then
// Flowise's Tool Agent and Conversational Agent templates with their serpAPI tool, unchanged.
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { FlowNode, RunContext } from "../../src/engine";
import { registry } from "../../src/engine/chatflow/registry";
import { callOf } from "./agents-flows";
import conversationalAgent from "./fixtures/conversational-agent.json";
import toolAgent from "./fixtures/tool-agent.json";
import {
  type Fixture,
  closedUrl,
  credential,
  flowDataOf,
  makeCtx,
  marker,
  pointAtStandin,
  requestsWith,
  runFlow,
  runtimeWith,
} from "./helpers";

const services = () => inject("servicesUrl");

/** Every service's base URL var pointing at the stand-in (or all at `base`). */
const serviceEnv = (base?: string) => ({
  SERPAPI_BASE_URL: `${base ?? services()}/serpapi`,
  SERPER_BASE_URL: `${base ?? services()}/serper`,
  GOOGLE_CUSTOM_SEARCH_BASE_URL: `${base ?? services()}/google`,
  BRAVE_SEARCH_BASE_URL: `${base ?? services()}/brave`,
  TAVILY_BASE_URL: `${base ?? services()}/tavily/`,
});

const ctxWith = (base?: string): RunContext => makeCtx("q", { runtime: runtimeWith(serviceEnv(base)) });

async function build(
  name: string,
  credentialId: string | undefined,
  inputs: Record<string, unknown> = {},
  ctx = ctxWith(),
): Promise<StructuredToolInterface> {
  const node: FlowNode = {
    id: `${name}_0`,
    data: { id: `${name}_0`, name, label: name, category: "Tools", inputs, credential: credentialId },
  };
  return (await registry.get(name)!.build({ node, inputs, ctx })) as StructuredToolInterface;
}

type Received = {
  service: string;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: Record<string, unknown> | null;
};
async function received(service: string, contains: string): Promise<Received[]> {
  return (await fetch(`${services()}/requests?service=${service}&contains=${encodeURIComponent(contains)}`)).json();
}

const failure = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("expected the tool call to fail");
};

describe("serpAPI", () => {
  it("GET /search with q, api_key and engine; answers the first organic snippet", async () => {
    const cred = await credential("serpApi", { serpApiKey: "serp-key-0123456789" });
    const tool = await build("serpAPI", cred);
    expect(tool.name).toBe("search");
    const m = marker();
    expect(await tool.invoke({ input: `weather ${m}` })).toBe(`serp snippet for weather ${m}`);
    const [req, ...more] = await received("serpapi", m);
    expect(more).toHaveLength(0);
    expect(req).toMatchObject({
      method: "GET",
      path: "/serpapi/search",
      query: { q: `weather ${m}`, api_key: "serp-key-0123456789", engine: "google" },
    });
  });

  it("without a credential it still builds; a call answers which credential it needs", async () => {
    const tool = await build("serpAPI", undefined);
    expect(await failure(tool.invoke({ input: "x" }))).toBe(
      "serpAPI (serpAPI_0) is not configured: connect a serpApi credential with serpApiKey",
    );
  });

  it("a service error, an echoed key, an unreachable service: readable messages without the key", async () => {
    const key = "serp-secret-key-abcdef123456";
    const tool = await build("serpAPI", await credential("serpApi", { serpApiKey: key }));
    expect(await failure(tool.invoke({ input: "[fail]" }))).toBe("SerpAPI answered 500: serpapi is having a bad day");
    const echoed = await failure(tool.invoke({ input: "[echo-key]" }));
    expect(echoed).toMatch(/^SerpAPI answered 401: Invalid API key/);
    expect(echoed).not.toContain(key);
    const down = await build("serpAPI", await credential("serpApi", { serpApiKey: key }), {}, ctxWith(closedUrl()));
    const message = await failure(down.invoke({ input: "x" }));
    expect(message).toMatch(/^SerpAPI is unreachable/);
    expect(message).not.toContain(key);
  });
});

describe("serper, googleCustomSearch, braveSearchAPI, tavilyAPI", () => {
  it("serper: POST /search {q} with X-API-KEY", async () => {
    const tool = await build("serper", await credential("serperApi", { serperApiKey: "serper-key-1" }));
    const m = marker();
    expect(await tool.invoke({ input: m })).toBe(`serper snippet for ${m}`);
    const [req] = await received("serper", m);
    expect(req).toMatchObject({ method: "POST", path: "/serper/search", body: { q: m } });
    expect(req.headers["x-api-key"]).toBe("serper-key-1");
  });

  it("googleCustomSearch: key and cx in the query; a JSON array of {title, link, snippet}", async () => {
    const tool = await build(
      "googleCustomSearch",
      await credential("googleCustomSearchApi", { googleCustomSearchApiKey: "g-key-1", googleCustomSearchApiId: "cx-1" }),
    );
    expect(tool.name).toBe("google-custom-search");
    const m = marker();
    expect(JSON.parse(await tool.invoke({ input: m }))).toEqual([
      { title: `Google on ${m}`, link: "https://example.com/g", snippet: `google snippet for ${m}` },
    ]);
    const [req] = await received("google", m);
    expect(req).toMatchObject({ path: "/google/customsearch/v1", query: { key: "g-key-1", cx: "cx-1", q: m } });
    const half = await build("googleCustomSearch", await credential("googleCustomSearchApi", { googleCustomSearchApiKey: "g-key-1" }));
    expect(await failure(half.invoke({ input: "x" }))).toMatch(/connect a googleCustomSearchApi credential with googleCustomSearchApiId/);
  });

  it("braveSearchAPI: X-Subscription-Token; web.results as {title, link, snippet}", async () => {
    const tool = await build("braveSearchAPI", await credential("braveSearchApi", { braveApiKey: "brave-key-1" }));
    expect(tool.name).toBe("brave-search");
    const m = marker();
    expect(JSON.parse(await tool.invoke({ input: m }))).toEqual([
      { title: `Brave on ${m}`, link: "https://example.com/b", snippet: `brave snippet for ${m}` },
    ]);
    const [req] = await received("brave", m);
    expect(req).toMatchObject({ method: "GET", path: "/brave/res/v1/web/search", query: { q: m } });
    expect(req.headers["x-subscription-token"]).toBe("brave-key-1");
  });

  it("tavilyAPI: bearer key, the node's options in Tavily's names; Tavily's JSON back", async () => {
    const inputs = {
      topic: "news",
      searchDepth: "advanced",
      maxResults: "3",
      includeAnswer: true,
      includeDomains: "a.com, b.org",
      timeRange: "",
    };
    const tool = await build("tavilyAPI", await credential("tavilyApi", { tavilyApiKey: "tvly-key-1" }), inputs);
    expect(tool.name).toBe("tavily_search");
    const m = marker();
    const out = JSON.parse(await tool.invoke({ query: m }));
    expect(out.results[0]).toMatchObject({ title: `Tavily on ${m}`, content: `tavily content for ${m}` });
    const [req] = await received("tavily", m);
    expect(req.path).toBe("/tavily/search");
    expect(req.headers.authorization).toBe("Bearer tvly-key-1");
    expect(req.body).toEqual({
      query: m,
      topic: "news",
      search_depth: "advanced",
      max_results: 3,
      include_answer: true,
      include_domains: ["a.com", "b.org"],
    });
  });
});

const openAI = () => credential("openAIApi", { openAIApiKey: "sk-search-test" });

for (const [title, fixture, agentId] of [
  ["tool-agent.json", toolAgent, "toolAgent_0"],
  ["conversational-agent.json", conversationalAgent, "conversationalAgent_0"],
] as const) {
  describe(`${title} with its serpAPI tool, as exported`, () => {
    it("answers a question that needs no search while serpAPI has no credential", async () => {
      const cred = await openAI();
      const withCred = flowDataOf(fixture as unknown as Fixture, (n) => pointAtStandin(n.get("chatOpenAI_0")!, cred));
      const m = marker();
      const result = await runFlow(withCred, makeCtx(`Hello ${m}`, { runtime: runtimeWith(serviceEnv()) }));
      expect(result.text).toBe(`echo: Hello ${m}`);
      const [req] = await requestsWith(m);
      const offered = ((req.body as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map((t) => t.function.name).sort();
      expect(offered).toEqual(["calculator", "search"]);
      expect(await received("serpapi", m)).toEqual([]);
    });

    it("a search reaches the SerpAPI stand-in and the answer uses its result", async () => {
      const cred = await openAI();
      const serp = await credential("serpApi", { serpApiKey: "serp-flow-key-123" });
      const flow = flowDataOf(fixture as unknown as Fixture, (n) => {
        pointAtStandin(n.get("chatOpenAI_0")!, cred);
        n.get("serpAPI_0")!.data.credential = serp;
      });
      const m = marker();
      const result = await runFlow(
        flow,
        makeCtx(`News? ${callOf("search", { input: `news ${m}` })}`, { runtime: runtimeWith(serviceEnv()) }),
      );
      expect(result.text).toBe(`tools said: serp snippet for news ${m}`);
      expect(result.usedTools).toEqual([{ tool: "search", toolInput: { input: `news ${m}` }, toolOutput: `serp snippet for news ${m}` }]);
      const [req] = await received("serpapi", m);
      expect(req.query).toMatchObject({ q: `news ${m}`, api_key: "serp-flow-key-123" });
      expect(JSON.parse(flow).nodes.find((n: FlowNode) => n.id === agentId).data.inputs.tools).toContain("{{serpAPI_0.data.instance}}");
    });

    it("a search while SerpAPI is down: the model reads the tool error and the run goes on", async () => {
      const cred = await openAI();
      const serp = await credential("serpApi", { serpApiKey: "serp-flow-key-down" });
      const flow = flowDataOf(fixture as unknown as Fixture, (n) => {
        pointAtStandin(n.get("chatOpenAI_0")!, cred);
        n.get("serpAPI_0")!.data.credential = serp;
      });
      const m = marker();
      const result = await runFlow(
        flow,
        makeCtx(`News? ${callOf("search", { input: `news ${m}` })}`, { runtime: runtimeWith(serviceEnv(closedUrl())) }),
      );
      expect(result.text).toMatch(/^tools said: Error: SerpAPI is unreachable/);
      expect(result.text).not.toContain("serp-flow-key-down");
    });
  });
}
