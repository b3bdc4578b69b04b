// The search tools' settings a user can set out of the service's documented range, against the strict
// search stand-ins (test/standin/search-rules.mjs): what the service received once our code keeps it in
// range (Tavily's max_results 0–20 and chunks_per_source 1–3, Exa's numResults ≤ 100, SearXNG's pageno ≥ 1
// and safesearch 0–2), and a query the service refuses reaching the model as the service's own words.
import type { StructuredToolInterface } from "@langchain/core/tools";
import { describe, expect, inject, it } from "vitest";
import type { FlowNode } from "../../src/engine";
import { registry } from "../../src/engine/chatflow/registry";
import { credential, makeCtx, marker, runtimeWith } from "./helpers";

const services = () => inject("servicesUrl");

const ctx = () =>
  makeCtx("q", {
    runtime: runtimeWith({ TAVILY_BASE_URL: `${services()}/tavily`, EXA_BASE_URL: `${services()}/exa`, OUTBOUND_ALLOW: "127.0.0.1" }),
  });

async function build(name: string, inputs: Record<string, unknown>, credentialId?: string): Promise<StructuredToolInterface> {
  const node: FlowNode = {
    id: `${name}_0`,
    data: { id: `${name}_0`, name, label: name, category: "Tools", inputs, credential: credentialId },
  };
  return (await registry.get(name)!.build({ node, inputs, ctx: ctx() })) as StructuredToolInterface;
}

type Received = { query: Record<string, string>; body: Record<string, unknown> | null };
const received = async (service: string, contains: string): Promise<Received[]> =>
  (await fetch(`${services()}/requests?service=${service}&contains=${encodeURIComponent(contains)}`)).json();

const failure = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => "",
    (e: Error) => e.message,
  );

describe("tavilyAPI", () => {
  it("maxResults over 20 and chunksPerSource over 3 are sent as Tavily's most (20, 3), not refused", async () => {
    const cred = await credential("tavilyApi", { tavilyApiKey: "tvly-range-1" });
    const tool = await build("tavilyAPI", { searchDepth: "advanced", maxResults: "50", chunksPerSource: 5 }, cred);
    const m = marker();
    expect(JSON.parse(await tool.invoke({ query: m })).results[0].title).toBe(`Tavily on ${m}`);
    const [req] = await received("tavily", m);
    expect(req.body).toMatchObject({ search_depth: "advanced", max_results: 20, chunks_per_source: 3 });
  });

  it("a negative or fractional maxResults is a whole number within 0–20", async () => {
    const cred = await credential("tavilyApi", { tavilyApiKey: "tvly-range-2" });
    const m = marker();
    await (await build("tavilyAPI", { maxResults: -3 }, cred)).invoke({ query: `a ${m}` });
    await (await build("tavilyAPI", { maxResults: "7.8" }, cred)).invoke({ query: `b ${m}` });
    expect((await received("tavily", m)).map((r) => r.body?.max_results)).toEqual([0, 7]);
  });

  it("a query over Tavily's 400 characters is Tavily's own message for the model", async () => {
    const tool = await build("tavilyAPI", {}, await credential("tavilyApi", { tavilyApiKey: "tvly-range-3" }));
    const long = `${marker()} ${"x".repeat(400)}`;
    expect(await failure(tool.invoke({ query: long }))).toBe("Tavily answered 400: Query is too long. Max query length is 400 characters.");
  });
});

describe("exaSearch", () => {
  it("numResults over 100 is sent as Exa's most (100), not refused", async () => {
    const tool = await build("exaSearch", { numResults: 500 }, await credential("exaSearchApi", { exaSearchApiKey: "exa-range-1" }));
    const m = marker();
    expect(JSON.parse(await tool.invoke({ input: m })).results[0].title).toBe(`Exa on ${m}`);
    const [req] = await received("exa", m);
    expect(req.body).toMatchObject({ query: m, numResults: 100 });
  });
});

describe("searXNG", () => {
  it("pageno below 1 is page 1 and safesearch over 2 is 2 (SearXNG's strictest), not refused", async () => {
    const tool = await build("searXNG", { apiBase: `${services()}/searxng`, pageno: 0, safesearch: "5" });
    const m = marker();
    expect(JSON.parse(`[${await tool.invoke({ input: m })}]`)[0].title).toBe(`SearXNG on ${m}`);
    const [req] = await received("searxng", m);
    expect(req.query).toMatchObject({ q: m, pageno: "1", safesearch: "2", format: "json" });
  });

  it("a time_range SearXNG does not know is its own 400 for the model", async () => {
    const tool = await build("searXNG", { apiBase: `${services()}/searxng`, time_range: "decade" });
    expect(await failure(tool.invoke({ input: marker() }))).toBe("SearXNG answered 400: Invalid value decade for parameter time_range");
  });
});
