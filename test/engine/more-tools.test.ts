// searXNG, exaSearch, wolframAlpha and searchAPI, each used by a Tool Agent in a saved chatflow run
// through POST /prediction with the OpenAI-compatible stand-in model (`[call NAME {json}]`), against
// the search stand-ins (test/standin/search-more.mjs): what the service received (query, key) and
// that its result reached the model. Then failures: a service error or an echoed key is a readable
// tool error without the key, and a base URL var on a private address is refused by the outbound policy.
import type { StructuredToolInterface } from "@langchain/core/tools";
import { afterEach, describe, expect, inject, it } from "vitest";
import type { FlowNode } from "../../src/engine";
import { registry } from "../../src/engine/chatflow/registry";
import { json } from "../helpers";
import { setVars } from "../security/helpers";
import { callOf, type ExtraNode, toolAgentFlow } from "./agents-flows";
import { credential, makeCtx, marker, requestsWith, runtimeWith, standinUrl } from "./helpers";

const services = () => inject("servicesUrl");

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

const vars = (extra: Record<string, string> = {}) => {
  restore = setVars({
    OUTBOUND_ALLOW: "127.0.0.1",
    EXA_BASE_URL: `${services()}/exa`,
    WOLFRAM_ALPHA_BASE_URL: `${services()}/wolfram/`,
    SEARCHAPI_BASE_URL: `${services()}/searchapi`,
    ...extra,
  });
};

type Received = { method: string; path: string; query: Record<string, string>; headers: Record<string, string>; body: any };
const received = async (service: string, contains: string): Promise<Received[]> =>
  (await fetch(`${services()}/requests?service=${service}&contains=${encodeURIComponent(contains)}`)).json();

/** A Tool Agent chatflow (calculator and memory removed) with `tool`, saved; answers its id. */
async function saveWith(tool: ExtraNode, credentialId?: string): Promise<string> {
  const openai = await credential("openAIApi", { openAIApiKey: "sk-more-tools" });
  const flow = JSON.parse(toolAgentFlow({ credential: openai, calculator: false, memory: false, nodes: [tool] }));
  if (credentialId) flow.nodes.find((n: { id: string }) => n.id === tool.id).data.credential = credentialId;
  return (await json("POST", "/chatflows", { body: { name: `more-tools ${tool.name}`, flowData: JSON.stringify(flow) } })).id;
}

const predict = (id: string, question: string) => json("POST", `/prediction/${id}`, { body: { question } });

describe("more search tools in a Tool Agent through POST /prediction", () => {
  it("searXNG: POST {apiBase}/search with q and format=json, the node's options; results as {title, link, snippet}", async () => {
    vars();
    const id = await saveWith({
      id: "searXNG_0",
      name: "searXNG",
      inputs: { apiBase: `${services()}/searxng`, categories: "news", headers: '{"X-Token": "tok-1"}' },
    });
    const m = marker();
    const answer = await predict(id, `Search ${m} ${callOf("searxng-search", { input: `news ${m}` })}`);
    const first = JSON.stringify({
      title: `SearXNG on news ${m}`,
      link: "https://example.com/s1",
      snippet: `searxng content for news ${m}`,
    });
    const second = JSON.stringify({ title: "second", link: "https://example.com/s2", snippet: "more" });
    expect(answer.text).toBe(`tools said: ${first},${second}`);
    const [req, ...more] = await received("searxng", m);
    expect(more).toHaveLength(0);
    expect(req).toMatchObject({ method: "POST", path: "/searxng/search" });
    expect(req.query).toMatchObject({ q: `news ${m}`, format: "json", categories: "news", pageno: "1", safesearch: "0" });
    expect(req.headers["x-token"]).toBe("tok-1");
    const [model] = (await requestsWith(m)).filter((r) => JSON.stringify(r.body).includes("searxng content"));
    expect(model).toBeDefined();
  });

  it("searXNG: a toolName with spaces reaches the model as a name chat APIs accept (letters, digits, _ and -)", async () => {
    vars();
    const id = await saveWith({ id: "searXNG_0", name: "searXNG", inputs: { apiBase: `${services()}/searxng`, toolName: "Web Search!" } });
    const m = marker();
    const answer = await predict(id, `Search ${m} ${callOf("Web_Search", { input: `news ${m}` })}`);
    expect(answer.text).toContain(`SearXNG on news ${m}`);
    const [first] = await requestsWith(m);
    const offered = (first.body as { tools?: Array<{ function: { name: string } }> }).tools;
    expect(offered?.map((t) => t.function.name)).toEqual(["Web_Search"]);
  });

  it("exaSearch: POST /search with x-api-key, query and contents {text: true}; Exa's JSON reaches the model", async () => {
    vars();
    const cred = await credential("exaSearchApi", { exaSearchApiKey: "exa-key-123456" });
    const id = await saveWith({ id: "exaSearch_0", name: "exaSearch", inputs: { numResults: "3", includeDomains: "a.com, b.org" } }, cred);
    const m = marker();
    const answer = await predict(id, `Find ${m} ${callOf("exa_search_results_json", { input: m })}`);
    expect(answer.text).toContain(`exa text for ${m}`);
    expect(answer.usedTools[0]).toMatchObject({ tool: "exa_search_results_json", toolInput: { input: m } });
    const [req] = await received("exa", m);
    expect(req).toMatchObject({ method: "POST", path: "/exa/search" });
    expect(req.headers["x-api-key"]).toBe("exa-key-123456");
    expect(req.body).toEqual({ query: m, contents: { text: true }, numResults: 3, includeDomains: ["a.com", "b.org"] });
  });

  it("wolframAlpha: GET /api/v1/llm-api with appid and input; its text reaches the model", async () => {
    vars();
    const cred = await credential("wolframAlphaAppId", { wolframAlphaAppId: "WOLF-APPID-1" });
    const id = await saveWith({ id: "wolframAlpha_0", name: "wolframAlpha" }, cred);
    const m = marker();
    const answer = await predict(id, `Integrate ${m} ${callOf("wolfram_alpha", { input: `x^2 ${m}` })}`);
    expect(answer.text).toContain(`wolfram result for x^2 ${m}`);
    const [req] = await received("wolfram", m);
    expect(req).toMatchObject({ method: "GET", path: "/wolfram/api/v1/llm-api", query: { appid: "WOLF-APPID-1", input: `x^2 ${m}` } });
  });

  it("searchAPI: GET /api/v1/search with engine=google, api_key and q; the organic snippets reach the model", async () => {
    vars();
    const cred = await credential("searchApi", { searchApiKey: "sapi-key-1" });
    const id = await saveWith({ id: "searchAPI_0", name: "searchAPI" }, cred);
    const m = marker();
    const answer = await predict(id, `News ${m} ${callOf("search", { input: m })}`);
    expect(answer.text).toBe(`tools said: searchapi snippet for ${m}\nsecond snippet`);
    const [req] = await received("searchapi", m);
    expect(req).toMatchObject({ path: "/searchapi/api/v1/search", query: { engine: "google", api_key: "sapi-key-1", q: m } });
  });
});

describe("webBrowser in a Tool Agent through POST /prediction", () => {
  const browserNodes = (cred: string): ExtraNode[] => [
    { id: "emb_0", name: "openAIEmbeddings", category: "Embeddings", inputs: { credential: cred, basepath: `${standinUrl()}/v1` } },
    { id: "webBrowser_0", name: "webBrowser", inputs: { model: "{{chatOpenAI_0.data.instance}}", embeddings: "{{emb_0.data.instance}}" } },
  ];

  async function saveBrowser(): Promise<string> {
    const openai = await credential("openAIApi", { openAIApiKey: "sk-more-tools" });
    const flowData = toolAgentFlow({ credential: openai, calculator: false, memory: false, nodes: browserNodes(openai) });
    return (await json("POST", "/chatflows", { body: { name: "more-tools webBrowser", flowData } })).id;
  }

  it("a task: the page's text, the chunks nearest the task embedded, the connected model asked; its answer reaches the agent", async () => {
    vars();
    const id = await saveBrowser();
    const m = marker();
    const page = `${services()}/web/${m}`;
    const answer = await predict(id, `Read ${m} ${callOf("web-browser", { input: `"${page}/", who says hello ${m}` })}`);
    const text = `Page /web/${m} menu Hello from /web/${m} & \u201cfriends\u201d [next](${services()}/web/next)`;
    const ask =
      `Text:${text}\n\nI need who says hello ${m} from the above text, also provide up to 5 markdown links from within that would ` +
      "be of interest (always including URL and text). Links should be provided, if present, in markdown syntax as a list " +
      'under the heading "Relevant Links:".';
    expect(answer.text).toBe(`tools said: echo: ${ask}`);
    const embedded = (await requestsWith(m)).filter((r) => r.path.endsWith("/embeddings"));
    expect(embedded.flatMap((r) => (r.body as unknown as { input: string[] }).input)).toEqual(
      expect.arrayContaining([text, `who says hello ${m}`]),
    );
  });

  it("an empty task is a summary of the body's text; an unreachable page is an error the model reads", async () => {
    vars();
    const id = await saveBrowser();
    const m = marker();
    const answer = await predict(id, `Sum ${m} ${callOf("web-browser", { input: `${services()}/web/${m},` })}`);
    expect(answer.text).toMatch(
      new RegExp(`^tools said: echo: Text:menu Hello from /web/${m}[\\s\\S]*I need a summary from the above text`),
    );
    const refused = await predict(id, `Read ${marker()} ${callOf("web-browser", { input: "http://10.0.0.1/page, x" })}`);
    expect(refused.text).toMatch(/^tools said: Error: Outbound request refused: 10.0.0.1 is a private address/);
  });
});

describe("failures the model reads", () => {
  it("a service error and an echoed key: readable tool errors without the key", async () => {
    // Built directly: a question holding [fail] would fail the stand-in model itself.
    const cred = await credential("exaSearchApi", { exaSearchApiKey: "exa-secret-key-abcdef" });
    const node: FlowNode = {
      id: "exaSearch_0",
      data: { id: "exaSearch_0", name: "exaSearch", label: "Exa", category: "Tools", inputs: {}, credential: cred },
    };
    const ctx = makeCtx("q", { runtime: runtimeWith({ EXA_BASE_URL: `${services()}/exa` }) });
    const tool = (await registry.get("exaSearch")!.build({ node, inputs: {}, ctx })) as StructuredToolInterface;
    const failure = (input: string) =>
      tool.invoke({ input }).then(
        () => "",
        (e: Error) => e.message,
      );
    expect(await failure(`[fail] ${marker()}`)).toBe("Exa answered 500: exa is having a bad day");
    const echoed = await failure(`[echo-key] ${marker()}`);
    expect(echoed).toMatch(/^Exa answered 401: Invalid API key/);
    expect(echoed).not.toContain("exa-secret-key-abcdef");
  });

  it("a base URL var on a private address is refused by the outbound policy (named), nothing sent", async () => {
    vars({ SEARCHAPI_BASE_URL: "http://10.9.9.9", WOLFRAM_ALPHA_BASE_URL: "http://192.168.1.1" });
    const cred = await credential("searchApi", { searchApiKey: "sapi-private-key" });
    const id = await saveWith({ id: "searchAPI_0", name: "searchAPI" }, cred);
    const answer = await predict(id, `x ${callOf("search", { input: marker() })}`);
    expect(answer.text).toMatch(/^tools said: Error: SEARCHAPI_BASE_URL refused by the outbound policy/);
    expect(answer.text).not.toContain("sapi-private-key");
    const wolf = await credential("wolframAlphaAppId", { wolframAlphaAppId: "WOLF-PRIVATE" });
    const wid = await saveWith({ id: "wolframAlpha_0", name: "wolframAlpha" }, wolf);
    const w = await predict(wid, `x ${callOf("wolfram_alpha", { input: marker() })}`);
    expect(w.text).toMatch(/^tools said: Error: WOLFRAM_ALPHA_BASE_URL refused by the outbound policy/);
  });

  it("searXNG's apiBase on a private address is refused by the request rule", async () => {
    vars();
    const id = await saveWith({ id: "searXNG_0", name: "searXNG", inputs: { apiBase: "http://10.1.2.3:8080" } });
    const answer = await predict(id, `x ${callOf("searxng-search", { input: marker() })}`);
    expect(answer.text).toMatch(/^tools said: Error: Outbound request refused: 10.1.2.3 is a private address/);
  });
});
