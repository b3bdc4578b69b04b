// requestsGet/Post/Put/Delete, webScraperTool and arxiv against the services stand-in
// (test/standin/services.mjs): what the service received, what the model reads, and the outbound
// policy on URLs (loopback is reachable here only because OUTBOUND_ALLOW lists 127.0.0.1).
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { FlowNode, RunContext } from "../../src/engine";
import { registry } from "../../src/engine/chatflow/registry";
import { closedUrl, makeCtx, marker, runtimeWith } from "./helpers";

const services = () => inject("servicesUrl");
const allowed = (): RunContext =>
  makeCtx("q", { runtime: runtimeWith({ OUTBOUND_ALLOW: "127.0.0.1", ARXIV_BASE_URL: `${services()}/arxiv` }) });

async function build(name: string, inputs: Record<string, unknown>, ctx = allowed()): Promise<StructuredToolInterface> {
  const node: FlowNode = { id: `${name}_0`, data: { id: `${name}_0`, name, label: name, category: "Tools", inputs } };
  return (await registry.get(name)!.build({ node, inputs, ctx })) as StructuredToolInterface;
}

const failure = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("expected a failure");
};

describe("requests tools", () => {
  it("requestsGet: the node's URL and headers, the model's query parameters (path ones into :id)", async () => {
    const m = marker();
    const tool = await build("requestsGet", {
      requestsGetUrl: `${services()}/echo/items/:id`,
      requestsGetName: "Get Item",
      requestsGetHeaders: '{"X-Token": "tok-secret-123456789"}',
      requestsGetQueryParamsSchema: JSON.stringify({
        id: { type: "string", in: "path", required: true },
        q: { type: "string", in: "query" },
      }),
    });
    expect(tool.name).toBe("get_item");
    const out = JSON.parse(await tool.invoke({ queryParams: { id: "42", q: m } }));
    expect(out).toMatchObject({ method: "GET", path: `/echo/items/42?q=${m}` });
    expect(out.headers["x-token"]).toBe("tok-secret-123456789");
  });

  it("requestsPost and requestsPut: JSON body of the node's fixed body and the model's fields", async () => {
    for (const [name, prefix, bodyInput] of [
      ["requestsPost", "requestsPost", "requestPostBody"],
      ["requestsPut", "requestsPut", "requestPutBody"],
    ]) {
      const m = marker();
      const tool = await build(name, {
        [`${prefix}Url`]: `${services()}/echo/things`,
        [bodyInput]: '{"fixed": 1}',
        [`${prefix}BodySchema`]: '{"title": {"type": "string", "required": true}}',
      });
      expect(tool.name).toBe(`requests_${name === "requestsPost" ? "post" : "put"}`);
      const out = JSON.parse(await tool.invoke({ body: { title: m } }));
      expect(out).toMatchObject({ method: name === "requestsPost" ? "POST" : "PUT", path: "/echo/things", body: { fixed: 1, title: m } });
      expect(out.headers["content-type"]).toBe("application/json");
    }
  });

  it("requestsDelete; a cut at maxOutputLength; an error status and a refused URL as tool errors", async () => {
    const del = await build("requestsDelete", { requestsDeleteUrl: `${services()}/echo/things/7`, requestsDeleteMaxOutputLength: "20" });
    const out = await del.invoke({});
    expect(out).toHaveLength(20);
    expect(out).toBe('{"method":"DELETE","'.slice(0, 20));
    const missing = await build("requestsGet", { requestsGetUrl: `${services()}/nothing` });
    expect(await failure(missing.invoke({}))).toMatch(/^Failed to make GET request: HTTP Error 404/);
    const refused = await build("requestsGet", { requestsGetUrl: `${services()}/echo` }, makeCtx("q"));
    expect(await failure(refused.invoke({}))).toMatch(/^Failed to make GET request: .*loopback/);
    const down = await build("requestsGet", { requestsGetUrl: closedUrl() });
    expect(await failure(down.invoke({}))).toMatch(/is unreachable/);
  });

  it("a URL-less node or broken headers JSON is the node's 400", async () => {
    const err = (await build("requestsGet", {}).catch((e) => e)) as { status: number; message: string };
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/needs a URL/);
    const bad = (await build("requestsPost", { requestsPostUrl: "https://x.example", requestsPostHeaders: "{nope" }).catch((e) => e)) as {
      status: number;
    };
    expect(bad.status).toBe(400);
  });
});

describe("webScraperTool", () => {
  it("scrapes the start page and the pages it links to (maxDepth 2): title, paragraph text (entities decoded)", async () => {
    const tool = await build("webScraperTool", { maxDepth: "2", maxPages: "5" });
    expect(tool.name).toBe("web_scraper_tool");
    const m = marker();
    const pages = JSON.parse(await tool.invoke({ input: `${services()}/web/${m}` }));
    expect(pages).toEqual([
      {
        url: `${services()}/web/${m}`,
        title: `Page /web/${m}`,
        description: "No description found",
        body_text: `Hello from /web/${m} & “friends”`,
      },
      {
        url: `${services()}/web/next`,
        title: "Page /web/next",
        description: "No description found",
        body_text: "Hello from /web/next & “friends”",
      },
    ]);
  });

  it("maxDepth 1 stays on the page; a refused or bad URL is an entry with its error", async () => {
    const tool = await build("webScraperTool", {});
    expect(JSON.parse(await tool.invoke({ input: `${services()}/web/one` }))).toHaveLength(1);
    const refused = await build("webScraperTool", {}, makeCtx("q"));
    const [page] = JSON.parse(await refused.invoke({ input: `${services()}/web/one` }));
    expect(page.error).toMatch(/^Scraping Error: .*loopback/);
    expect(JSON.parse(await tool.invoke({ input: "ftp://x" }))[0].error).toBe("Invalid URL format or protocol");
  });
});

describe("arxiv", () => {
  it("searches by keywords (all:…) and answers Published / Title / Authors / Summary blocks", async () => {
    const tool = await build("arxiv", { topKResults: "2" });
    expect(tool.name).toBe("arxiv_search");
    const m = marker();
    const out = await tool.invoke({ query: `graph ${m}` });
    expect(out).toBe(
      [1, 2]
        .map(
          (n) =>
            `Published: 2024-01-0${n}\nTitle: Paper ${n} about graph ${m}\nAuthors: Author ${n}\nSummary: Summary ${n}: we study graph ${m} & more.`,
        )
        .join("\n\n"),
    );
    const [req] = (await (await fetch(`${services()}/requests?service=arxiv&contains=${m}`)).json()) as { query: unknown }[];
    expect(req.query).toEqual({ search_query: `all:graph ${m}`, max_results: "2", sortBy: "relevance", sortOrder: "descending" });
  });

  it("ids go to id_list; arXiv down is a readable tool error", async () => {
    const tool = await build("arxiv", {});
    await tool.invoke({ query: "2401.00001 2401.00002" });
    const reqs = (await (await fetch(`${services()}/requests?service=arxiv&contains=2401.00001`)).json()) as { query: unknown }[];
    expect(reqs.at(-1)?.query).toEqual({ id_list: "2401.00001,2401.00002", max_results: "3" });
    const down = await build("arxiv", {}, makeCtx("q", { runtime: runtimeWith({ ARXIV_BASE_URL: closedUrl() }) }));
    expect(await failure(down.invoke({ query: "x" }))).toMatch(/^arXiv is unreachable/);
  });
});
