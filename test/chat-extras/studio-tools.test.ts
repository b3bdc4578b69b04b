// The studio dialogs' helpers: a web loader's "Get links" (GET /fetch-links), a JavaScript input's
// "Execute" (POST /node-custom-function) and the LangChain Hub prompt picker (POST /prompts-list,
// POST /load-prompt), against loopback stand-ins (test/standin/site.mjs, hub.mjs).
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { call, expectError, json, uuid } from "../helpers";
import { setVars } from "../security/helpers";
import { keyWith } from "../security/keys";

const site = () => inject("siteUrl");
const links = (url: string, method = "webCrawl", limit = "10", token?: string) =>
  call("GET", `/fetch-links?${new URLSearchParams({ url, relativeLinksMethod: method, limit })}`, { token });

describe("GET /fetch-links", () => {
  let restore: () => void;
  beforeAll(() => {
    restore = setVars({ OUTBOUND_ALLOW: new URL(inject("siteUrl")).host });
  });
  afterAll(() => restore());

  it("webCrawl: the site's own pages reached from the start page, each once, without fragments", async () => {
    const res = await links(`${site()}/site/`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; links: string[] };
    expect(body.status).toBe("OK");
    expect(body.links).toEqual([`${site()}/site`, `${site()}/site/a`, `${site()}/site/b`, `${site()}/missing`, `${site()}/site/c?x=1`]);
  });

  it("stops at the limit, and at 100 links whatever the limit", async () => {
    expect(((await (await links(`${site()}/site`, "webCrawl", "2")).json()) as { links: string[] }).links).toEqual([
      `${site()}/site`,
      `${site()}/site/a`,
    ]);
    const many = ((await (await links(`${site()}/many`, "webCrawl", "0")).json()) as { links: string[] }).links;
    expect(many).toHaveLength(100);
    expect(new Set(many).size).toBe(100);
  });

  it("xmlScrape: a sitemap's http(s) entries", async () => {
    const body = await (await links(`${site()}/sitemap.xml`, "xmlScrape")).json();
    expect(body).toEqual({ status: "OK", links: [`${site()}/site`, `${site()}/site/a`, `${site()}/search?q=a&page=2`] });
  });

  it("refuses private addresses (the outbound policy) and bad input with a clear 4xx", async () => {
    restore();
    try {
      const refused = await expectError(await links(`${site()}/site`), 400);
      expect(refused.message).toContain("loopback");
      expect((await expectError(await links("http://169.254.169.254/latest/meta-data"), 400)).message).toMatch(/refused/);
      expect((await expectError(await links("file:///etc/passwd"), 400)).message).toMatch(/http and https/);
    } finally {
      restore = setVars({ OUTBOUND_ALLOW: new URL(inject("siteUrl")).host });
    }
    await expectError(await links(`${site()}/site`, "deepCrawl"), 400);
    await expectError(await links(`${site()}/site`, "webCrawl", "-1"), 400);
    // An empty limit input: the page sends `limit=undefined`, which is the default (10).
    expect(((await (await links(`${site()}/many`, "webCrawl", "undefined")).json()) as { links: string[] }).links).toHaveLength(10);
    // …or `limit=NaN` when the page parsed the empty input as a number first.
    expect(((await (await links(`${site()}/many`, "webCrawl", "NaN")).json()) as { links: string[] }).links).toHaveLength(10);
    await expectError(await call("GET", "/fetch-links?relativeLinksMethod=webCrawl"), 400);
    expect((await expectError(await links(`${site()}/missing`), 400)).message).toContain("error status");
  });

  it("needs a key that may edit flows or loaders", async () => {
    await expectError(await call("GET", `/fetch-links?url=${site()}/site&relativeLinksMethod=webCrawl`, { token: null }), 401);
    const viewer = await keyWith(["chatflows:view"]);
    await expectError(await links(`${site()}/site`, "webCrawl", "1", viewer.apiKey), 403);
    const loaderKey = await keyWith(["documentStores:add-loader"]);
    expect((await links(`${site()}/site`, "webCrawl", "1", loaderKey.apiKey)).status).toBe(200);
  });
});

describe("POST /node-custom-function", () => {
  const run = (body: unknown, token?: string) => call("POST", "/node-custom-function", { body, token });

  it("answers the function's value: objects as JSON, strings as they are, with the body's fields as $variables", async () => {
    expect(await json("POST", "/node-custom-function", { body: { javascriptFunction: "return { n: 1 + 2, list: [1, 'a'] };" } })).toEqual({
      n: 3,
      list: [1, "a"],
    });
    expect(await json("POST", "/node-custom-function", { body: { javascriptFunction: "return `hi ${$name}`;", name: "ada" } })).toBe(
      "hi ada",
    );
    const vars = { javascriptFunction: "return [$a, $b, typeof $c];", functionInputVariables: '{"a": 1, "b": "two"}' };
    expect(await json("POST", "/node-custom-function", { body: vars })).toEqual([1, "two", "undefined"]);
    expect(await json("POST", "/node-custom-function", { body: { javascriptFunction: "const x = 1;" } })).toBe("");
  });

  it("$vars only for a caller who may view variables", async () => {
    const name = `v${uuid().slice(0, 8)}`;
    await json("POST", "/variables", { body: { name, value: "s3cret", type: "static" } });
    const code = { javascriptFunction: `return String($vars.${name});` };
    expect(await json("POST", "/node-custom-function", { body: code })).toBe("s3cret");
    const editor = await keyWith(["chatflows:update"]);
    expect(await (await run(code, editor.apiKey)).json()).toBe("undefined");
    const both = await keyWith(["chatflows:update", "variables:view"]);
    expect(await (await run(code, both.apiKey)).json()).toBe("s3cret");
  });

  it("a throwing, endless or malformed function is a clear 400, within the sandbox's time limit", async () => {
    expect((await expectError(await run({ javascriptFunction: "throw new Error('boom')" }), 400)).message).toContain("boom");
    const started = Date.now();
    const endless = await expectError(await run({ javascriptFunction: "while (true) {}" }), 400);
    expect(endless.message).toMatch(/limit|time/i);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await expectError(await run({ javascriptFunction: "return (" }), 400)).message).toMatch(/Syntax|expect/i);
    await expectError(await run({ javascriptFunction: "" }), 400);
    await expectError(await run({ javascriptFunction: "return 1", "bad-name": 1 }), 400);
    await expectError(await run({ javascriptFunction: "return 1", functionInputVariables: "[1]" }), 400);
  });

  it("fetch inside the function keeps the outbound policy", async () => {
    const res = await expectError(await run({ javascriptFunction: "const r = await fetch('http://127.0.0.1:9/'); return r.status;" }), 400);
    expect(res.message).toContain("Outbound request refused");
  });

  it("needs a key that may create or edit flows", async () => {
    await expectError(await call("POST", "/node-custom-function", { body: { javascriptFunction: "return 1" }, token: null }), 401);
    const viewer = await keyWith(["chatflows:view"]);
    await expectError(await run({ javascriptFunction: "return 1" }, viewer.apiKey), 403);
  });
});

describe("LangChain Hub: POST /prompts-list and POST /load-prompt", () => {
  let restore: () => void;
  beforeAll(() => {
    restore = setVars({ LANGCHAIN_HUB_URL: inject("hubUrl") });
  });
  afterAll(() => restore());

  it("lists the hub's prompts with the picker's tags, most liked first, as the hub gives them", async () => {
    const chat = await json("POST", "/prompts-list", { body: { tags: "ChatPromptTemplate&" } });
    expect(chat.status).toBe("OK");
    expect(chat.repos.map((r: { full_name: string }) => r.full_name)).toEqual(["rlm/rag-prompt", "acme/support-bot"]);
    expect(chat.repos[0]).toMatchObject({ id: "rlm-rag-prompt", tags: expect.any(Array), description: "The rag-prompt prompt" });
    const filtered = await json("POST", "/prompts-list", { body: { tags: "ChatPromptTemplate&tags=openai:gpt-4&" } });
    expect(filtered.repos.map((r: { full_name: string }) => r.full_name)).toEqual(["rlm/rag-prompt"]);
    // What reached the hub: its query, with tags only from the picker's fragment.
    const sneaky = await json("POST", "/prompts-list", { body: { tags: "StringPromptTemplate&is_archived=true&limit=1" } });
    expect(sneaky.repos.map((r: { full_name: string }) => r.full_name)).toEqual(["hwchase17/react"]);
    const seen = (await (await fetch(`${inject("hubUrl")}/requests`)).json()) as { path: string }[];
    const last = new URL(seen.at(-1)!.path, "http://hub").searchParams;
    expect(last.getAll("is_archived")).toEqual(["false"]);
    expect(last.getAll("limit")).toEqual(["100"]);
  });

  it("loads a chat prompt's messages and a string prompt's template", async () => {
    expect(await json("POST", "/load-prompt", { body: { promptName: "rlm/rag-prompt" } })).toEqual({
      status: "OK",
      prompt: "rlm/rag-prompt",
      templates: [
        { type: "systemMessagePrompt", typeDisplay: "System Message", template: "You answer from the context: {context}" },
        { type: "humanMessagePrompt", typeDisplay: "Human Message", template: "{question}" },
        { type: "aiMessagePrompt", typeDisplay: "AI Message", template: "Let me look." },
      ],
    });
    const react = await json("POST", "/load-prompt", { body: { promptName: "hwchase17/react:abc123" } });
    expect(react.templates).toEqual([{ type: "template", typeDisplay: "Prompt", template: "Answer the following questions: {input}" }]);
    expect((await json("POST", "/load-prompt", { body: { promptName: "solo" } })).templates[0].template).toBe("Solo {x}");
  });

  it("a missing prompt is 404, a bad name 400, a failing hub 502 naming it", async () => {
    expect((await expectError(await call("POST", "/load-prompt", { body: { promptName: "acme/none" } }), 404)).message).toContain(
      "acme/none",
    );
    await expectError(await call("POST", "/load-prompt", { body: { promptName: "../../etc" } }), 400);
    await expectError(await call("POST", "/load-prompt", { body: {} }), 400);
    const broken = await expectError(await call("POST", "/load-prompt", { body: { promptName: "broken/x" } }), 502);
    expect(broken.message).toContain("LangChain Hub");
  });

  it("an unreachable hub is a 502 naming the hub and its address", async () => {
    const back = setVars({ LANGCHAIN_HUB_URL: inject("closedUrl") });
    try {
      for (const [path, body] of [
        ["/prompts-list", { tags: "ChatPromptTemplate&" }],
        ["/load-prompt", { promptName: "rlm/rag-prompt" }],
      ] as const) {
        const err = await expectError(await call("POST", path, { body }), 502);
        expect(err.message).toContain(`LangChain Hub (${inject("closedUrl")}) is unreachable`);
      }
    } finally {
      back();
    }
  });
});

describe("the API reference", () => {
  it("documents every chat extra, with its security", async () => {
    const spec = await json("GET", "/openapi.json", { token: null });
    const ops: [string, string][] = [
      ["/get-upload-file", "get"],
      ["/attachments/{chatflowId}/{chatId}", "post"],
      ["/fetch-links", "get"],
      ["/node-custom-function", "post"],
      ["/export-import/chatflow-messages", "post"],
      ["/prompts-list", "post"],
      ["/load-prompt", "post"],
    ];
    for (const [path, method] of ops) expect(spec.paths[path]?.[method]?.security, `${method} ${path}`).toBeDefined();
    expect(spec.paths["/get-upload-file"].get.security).toEqual([{}, { bearerAuth: [] }]);
    expect(spec.paths["/node-custom-function"].post.description).toContain("Needs: chatflows:create");
  });
});
