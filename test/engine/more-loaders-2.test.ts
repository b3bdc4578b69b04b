// The second batch of Flowise's document loaders as users reach them: gitbook (pages and a sitemap
// under the outbound policy), figma, unstructuredFileLoader, oxylabs and apifyWebsiteContentCrawler
// over their wire protocols (test/standin/loaders-hosted-2.mjs); fileLoader and the Office loaders
// through POST /vector/upsert (multipart, with htmlToMarkdownTextSplitter) and the document store
// (the wizard's list, a preview, a multipart upsert).
import { strToU8, zipSync } from "fflate";
import { describe, expect, inject, it } from "vitest";
import { workLimits } from "../../src/lib/limits";
import { loadDocuments } from "../../src/providers/loaders/registry";
import type { LoaderFile } from "../../src/providers/loaders/types";
import { call, json } from "../helpers";
import { LOCAL, form, newStore, upsertForm } from "../routes/document-store-helpers";
import { setVars } from "../security/helpers";
import { credential, marker } from "./helpers";
import { flow, ref, standinModel } from "./retrieval-flows";

const hosted = () => inject("loadersHosted2Url");
const creds: Record<string, Record<string, unknown>> = {
  figma: { accessToken: "figd-stand-in" },
  figmaBad: { accessToken: "figd-wrong-0123" },
  unstructured: { unstructuredAPIKey: "unst-key-0123" },
  unstructuredBad: { unstructuredAPIKey: "bad-key" },
  oxylabs: { username: "oxy-user", password: "oxy-pass" },
  oxylabsBad: { username: "oxy-user", password: "oxy-wrong-pass-9" },
  apify: { apifyApiToken: "apify_api_stand_in" },
  apifyBad: { apifyApiToken: "apify_api_wrong_77" },
};
const load = (
  name: string,
  config: Record<string, unknown>,
  files: LoaderFile[] = [],
  outbound: { OUTBOUND_ALLOW?: string } = { OUTBOUND_ALLOW: "127.0.0.1" },
) =>
  loadDocuments(name, {
    config,
    files,
    outbound,
    maxBytes: 1 << 20,
    limits: workLimits({}),
    getCredential: async (id) => creds[id] ?? {},
    services: {
      FIGMA_BASE_URL: `${hosted()}/figma`,
      OXYLABS_BASE_URL: `${hosted()}/oxylabs`,
      APIFY_BASE_URL: `${hosted()}/apify`,
      ENVIRONMENT: "test",
    },
  });
const err = async (p: Promise<unknown>) =>
  (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status: number; message: string };
type Received = {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: any;
  fields?: Record<string, string[]>;
  file?: any;
};
const received = async (m: string): Promise<Received[]> => (await fetch(`${hosted()}/requests?contains=${m}`)).json();

describe("gitbook", () => {
  it("one page: the text under <main> (scripts left out), its first <h1> as title", async () => {
    const m = marker();
    const url = `${hosted()}/gitbook/${m}/intro`;
    const docs = await load("gitbook", { webPath: url });
    expect(docs.map((d) => [d.pageContent, d.metadata])).toEqual([
      [`Intro ${m}\nWelcome to the book & more\nFirst point\nSecond point`, { source: url, title: `Intro ${m}` }],
    ]);
  });

  it("shouldLoadAllPaths: every page of the sitemap (relative locs joined to the root); private addresses refused", async () => {
    const m = marker();
    const root = `${hosted()}/gitbook/${m}`;
    const docs = await load("gitbook", { webPath: `${root}/`, shouldLoadAllPaths: true });
    expect(docs.map((d) => d.metadata)).toEqual([
      { source: `${root}/intro`, title: `Intro ${m}` },
      { source: `${root}/guide`, title: `Guide ${m}` },
    ]);
    expect(await err(load("gitbook", { webPath: `${root}/intro` }, [], {}))).toMatchObject({ status: 400 });
    expect(await err(load("gitbook", { webPath: "http://10.0.0.8/docs" }))).toMatchObject({ status: 400 });
    expect(await err(load("gitbook", {}))).toMatchObject({ status: 400, message: expect.stringContaining("needs a webPath") });
  });

  it("a sitemap index whose pages are absolute URLs on another address than webPath: those URLs as they are", async () => {
    const m = marker();
    const site = `canon${m}`;
    const docs = await load("gitbook", { webPath: `${hosted()}/gitbook/${site}`, shouldLoadAllPaths: true });
    expect(docs.map((d) => d.metadata)).toEqual([
      { source: `${hosted()}/gitbook/docs-${site}/intro`, title: `Intro docs-${site}` },
      { source: `${hosted()}/gitbook/docs-${site}/guide`, title: `Guide docs-${site}` },
    ]);
  });
});

describe("figma", () => {
  it("GET /v1/files/KEY/nodes?ids=… with X-Figma-Token: the answer's JSON as one document", async () => {
    const m = marker();
    const docs = await load("figma", { fileKey: m, nodeIds: "1:2, 3:4", credential: "figma" });
    const url = `${hosted()}/figma/v1/files/${m}/nodes?ids=1:2,3:4`;
    expect(docs).toHaveLength(1);
    expect(docs[0].metadata).toEqual({ source: url });
    expect(JSON.parse(docs[0].pageContent)).toEqual({
      name: `File ${m}`,
      nodes: { "1:2": { document: { id: "1:2", name: "Frame 1:2", type: "FRAME" } }, "3:4": expect.any(Object) },
    });
    const [req] = await received(m);
    expect(req).toMatchObject({ method: "GET", path: `/figma/v1/files/${m}/nodes?ids=1:2,3:4` });
    expect(req.headers["x-figma-token"]).toBe("figd-stand-in");
  });

  it("a refused token is a 502 without it; no credential or no node ids a 400", async () => {
    const bad = await err(load("figma", { fileKey: marker(), nodeIds: "1", credential: "figmaBad" }));
    // Figma's error body is {status, err}: its text is what the message carries, not the JSON.
    expect(bad).toMatchObject({ status: 502, message: "Figma answered 403: Invalid token" });
    expect(bad.message).not.toContain("figd-wrong");
    expect(await err(load("figma", { fileKey: "k", nodeIds: "1" }))).toMatchObject({
      status: 400,
      message: expect.stringContaining("figmaApi"),
    });
    expect(await err(load("figma", { fileKey: "k", credential: "figma" }))).toMatchObject({ status: 400 });
  });

  it("a file's URL as fileKey (figma.com/design/:key/…, /file/… ): the key it holds is asked for", async () => {
    const m = marker();
    for (const fileKey of [`https://www.figma.com/design/${m}/Owl-Kit?node-id=1-2&t=x`, `https://figma.com/file/${m}D/Owls`]) {
      const docs = await load("figma", { fileKey, nodeIds: "1:2", credential: "figma" });
      expect(JSON.parse(docs[0].pageContent).name).toBe(`File ${fileKey.includes("/file/") ? `${m}D` : m}`);
    }
    expect((await received(m)).map((r) => r.path)).toEqual([`/figma/v1/files/${m}/nodes?ids=1:2`, `/figma/v1/files/${m}D/nodes?ids=1:2`]);
  });
});

describe("unstructuredFileLoader", () => {
  it("posts the file as multipart with Flowise's fields and the key; elements with text become documents", async () => {
    const m = marker();
    const file = { name: `${m}.md`, mime: "text/markdown", bytes: strToU8(`# Title ${m}\nFirst paragraph.\n\nSecond one.`) };
    const docs = await load(
      "unstructuredFileLoader",
      {
        unstructuredAPIUrl: `${hosted()}/unstructured/general/v0/general`,
        strategy: "fast",
        ocrLanguages: '["eng","deu"]',
        chunkingStrategy: "by_title",
        maxCharacters: "800",
        coordinates: true,
        credential: "unstructured",
        omitMetadataKeys: "languages",
      },
      [file],
    );
    expect(docs.map((d) => [d.pageContent, d.metadata])).toEqual([
      [`Title ${m}`, { filename: `${m}.md`, page_number: 1, category: "Title" }],
      ["First paragraph.", { filename: `${m}.md`, page_number: 1, category: "NarrativeText" }],
      ["Second one.", { filename: `${m}.md`, page_number: 1, category: "NarrativeText" }],
    ]);
    const [req] = await received(m);
    expect(req.headers["unstructured-api-key"]).toBe("unst-key-0123");
    expect(req.file).toMatchObject({ name: `${m}.md` });
    expect(req.fields).toEqual({
      strategy: ["fast"],
      ocr_languages: ["eng", "deu"],
      coordinates: ["true"],
      skip_infer_table_types: ["[]"],
      chunking_strategy: ["by_title"],
      max_characters: ["800"],
    });
  });

  it('Flowise\'s chunking strategy "None" is no chunking_strategy at all (Unstructured refuses the name: 422)', async () => {
    const m = marker();
    const file = { name: `${m}.txt`, mime: "text/plain", bytes: strToU8(`One line ${m}`) };
    const url = `${hosted()}/unstructured/general/v0/general`;
    const docs = await load("unstructuredFileLoader", { unstructuredAPIUrl: url, chunkingStrategy: "None", credential: "unstructured" }, [
      file,
    ]);
    expect(docs.map((d) => d.pageContent)).toEqual([`One line ${m}`]);
    const [req] = await received(m);
    expect(req.fields).toEqual({ strategy: ["hi_res"], skip_infer_table_types: ["[]"] });
    const bad = await err(
      load("unstructuredFileLoader", { unstructuredAPIUrl: url, strategy: "best", credential: "unstructured" }, [file]),
    );
    expect(bad).toMatchObject({ status: 502, message: expect.stringContaining("Unstructured answered 422") });
  });

  it("a refused key is a 502 with the service's message; the URL is under the outbound policy", async () => {
    const file = { name: "a.txt", mime: "text/plain", bytes: strToU8(`hello ${marker()}`) };
    const url = `${hosted()}/unstructured/general/v0/general`;
    const bad = await err(load("unstructuredFileLoader", { unstructuredAPIUrl: url, credential: "unstructuredBad" }, [file]));
    expect(bad).toMatchObject({ status: 502, message: expect.stringContaining("Unstructured answered 401: ") });
    expect(bad.message).toContain("API key is malformed");
    expect(bad.message).not.toContain("bad-key");
    expect(await err(load("unstructuredFileLoader", { unstructuredAPIUrl: url }, [file], {}))).toMatchObject({ status: 400 });
    expect(await err(load("unstructuredFileLoader", { unstructuredAPIUrl: url }, []))).toMatchObject({ status: 400 });
  });
});

describe("oxylabs", () => {
  it("POST /v1/queries with Basic auth: universal sends the URL with markdown; a result a document", async () => {
    const m = marker();
    const docs = await load("oxylabs", {
      query: `https://shop.example/${m}`,
      source: "universal",
      geo_location: "",
      credential: "oxylabs",
    });
    expect(docs.map((d) => [d.pageContent, d.metadata])).toEqual([[`# Oxylabs\n\nContent of https://shop.example/${m}`, {}]]);
    const [req] = await received(m);
    expect(req.headers.authorization).toBe(`Basic ${btoa("oxy-user:oxy-pass")}`);
    expect(req.body).toEqual({ source: "universal", url: `https://shop.example/${m}`, markdown: true });
    const parsed = await load("oxylabs", {
      query: `shoes ${m}`,
      source: "google_search",
      parse: true,
      render: true,
      credential: "oxylabs",
    });
    expect(JSON.parse(parsed[0].pageContent)).toEqual({ title: `Parsed shoes ${m}`, results: [1, 2] });
    expect((await received(m))[1].body).toEqual({
      source: "google_search",
      query: `shoes ${m}`,
      parse: true,
      render: "html",
      markdown: false,
    });
  });

  it("amazon_product sends the ASIN as `query` (not `url`); a source Oxylabs refuses is a 502 with its message", async () => {
    const m = marker();
    await load("oxylabs", { query: `B0${m}`, source: "amazon_product", geo_location: "90210", credential: "oxylabs" });
    expect((await received(m))[0].body).toEqual({ source: "amazon_product", query: `B0${m}`, geo_location: "90210", markdown: true });
    const bad = await err(load("oxylabs", { query: `x${m}`, source: "bing_serp", credential: "oxylabs" }));
    expect(bad).toMatchObject({ status: 502, message: expect.stringContaining("Oxylabs answered 400: Unsupported source: bing_serp") });
  });

  it("a target that answered 404 (an ASIN that does not exist) is a 502 naming it, not an empty document", async () => {
    const m = marker();
    const bad = await err(
      load("oxylabs", { query: `missing-${m}`, source: "amazon_product", user_agent_type: "mobile_ios", credential: "oxylabs" }),
    );
    expect(bad).toMatchObject({ status: 502, message: `Oxylabs could not fetch missing-${m}: the target answered 404` });
    expect((await received(m))[0].body).toMatchObject({ source: "amazon_product", query: `missing-${m}`, user_agent_type: "mobile_ios" });
  });

  it("refused credentials are a 502 that never shows the password; none a 400", async () => {
    const bad = await err(load("oxylabs", { query: "x", credential: "oxylabsBad" }));
    expect(bad).toMatchObject({ status: 502, message: "Oxylabs answered 401: Unauthorized" });
    expect(await err(load("oxylabs", { query: "x" }))).toMatchObject({ status: 400, message: expect.stringContaining("oxylabsApi") });
  });
});

describe("apifyWebsiteContentCrawler", () => {
  it("runs the actor, waits for the run, reads its dataset: a document per item with {source: url}", async () => {
    const m = marker();
    const urls = `https://docs.example/${m}/a, https://docs.example/${m}/b`;
    const docs = await load("apifyWebsiteContentCrawler", {
      urls,
      crawlerType: "cheerio",
      maxCrawlDepth: "2",
      maxCrawlPages: 5,
      additionalInput: '{"maxResults": 9}',
      credential: "apify",
    });
    expect(docs.map((d) => [d.pageContent, d.metadata])).toEqual([
      [`Crawled text of https://docs.example/${m}/a`, { source: `https://docs.example/${m}/a` }],
      [`Crawled text of https://docs.example/${m}/b`, { source: `https://docs.example/${m}/b` }],
    ]);
    const [start] = await received(m);
    expect(start).toMatchObject({ method: "POST", path: "/apify/v2/acts/apify~website-content-crawler/runs?waitForFinish=20" });
    expect(start.headers.authorization).toBe("Bearer apify_api_stand_in");
    expect(start.body).toEqual({
      startUrls: [{ url: `https://docs.example/${m}/a` }, { url: `https://docs.example/${m}/b` }],
      crawlerType: "cheerio",
      maxCrawlDepth: 2,
      maxCrawlPages: 5,
      maxResults: 9,
    });
  });

  it("a failed run and a refused token are 502s; bad additionalInput a 400", async () => {
    const failed = await err(load("apifyWebsiteContentCrawler", { urls: `https://x.example/fail-${marker()}`, credential: "apify" }));
    expect(failed).toMatchObject({ status: 502, message: expect.stringMatching(/crawler run run-\d+ ended FAILED/) });
    const bad = await err(load("apifyWebsiteContentCrawler", { urls: "https://x.example", credential: "apifyBad" }));
    expect(bad).toMatchObject({ status: 502, message: "Apify answered 401: Authentication token is not valid." });
    expect(await err(load("apifyWebsiteContentCrawler", { urls: "https://x", additionalInput: "{", credential: "apify" }))).toMatchObject({
      status: 400,
    });
  });
});

const slide = (text: string) => `<p:sld><p:txBody><a:p><a:r><a:t>${text}</a:t></a:r></a:p></p:txBody></p:sld>`;
const pptx = (slides: string[]) => zipSync(Object.fromEntries(slides.map((s, i) => [`ppt/slides/slide${i + 1}.xml`, strToU8(slide(s))])));

describe("fileLoader and the Office loaders in flows and document stores", () => {
  it("POST /vector/upsert: any upload goes to fileLoader, HTML split as Markdown by htmlToMarkdownTextSplitter", async () => {
    const m = marker();
    const flowData = flow([
      ["splitter_0", "htmlToMarkdownTextSplitter", "Text Splitters", { chunkSize: 200, chunkOverlap: 0 }],
      ["fileLoader_0", "fileLoader", "Document Loaders", { textSplitter: ref("splitter_0") }],
      ["emb_0", "localHashEmbeddings", "Embeddings"],
      [
        "vs_0",
        "memoryVectorStore",
        "Vector Stores",
        { document: [ref("fileLoader_0")], embeddings: ref("emb_0") },
        { output: "retriever" },
      ],
      standinModel(),
      ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref("vs_0") }],
    ] as never);
    const id = (await json("POST", "/chatflows", { body: { name: "files", flowData } })).id as string;
    const f = new FormData();
    f.append("files", new File([pptx([`Slide ${m}`])], "deck.pptx", { type: "application/octet-stream" }));
    f.append("files", new File([`<h2>Notes ${m}</h2><p>Some <b>bold</b> text</p>`], "notes.html", { type: "text/html" }));
    const res = await call("POST", `/vector/upsert/${id}`, { raw: f });
    expect(res.status).toBe(200);
    const body = await res.json<any>();
    expect(body.addedDocs.map((d: any) => [d.pageContent, d.metadata.source])).toEqual([
      [`Slide ${m}`, "deck.pptx"],
      [`## Notes ${m}\n\nSome **bold** text`, "notes.html"],
    ]);
  });

  it("the wizard lists the new loaders and the splitter; previews an XLSX given as a data URI; upserts a PPTX", async () => {
    const names = ((await json("GET", "/document-store/components/loaders")) as Array<{ name: string }>).map((n) => n.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "fileLoader",
        "microsoftWord",
        "microsoftExcel",
        "microsoftPowerpoint",
        "epubFile",
        "gitbook",
        "figma",
        "unstructuredFileLoader",
        "oxylabs",
        "apifyWebsiteContentCrawler",
      ]),
    );
    const splitters = ((await json("GET", "/nodes/category/Text%20Splitters")) as Array<{ name: string }>).map((n) => n.name);
    expect(splitters).toContain("htmlToMarkdownTextSplitter");

    const store = await newStore("office");
    const sheet =
      '<worksheet><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>City</t></is></c></row>' +
      '<row r="2"><c r="A2" t="inlineStr"><is><t>Oslo</t></is></c></row></sheetData></worksheet>';
    const xlsx = zipSync({
      "xl/workbook.xml": strToU8('<workbook><sheets><sheet name="Places" sheetId="1"/></sheets></workbook>'),
      "xl/worksheets/sheet1.xml": strToU8(sheet),
    });
    const dataUri = `data:application/vnd.openxmlformats-officedocument.spreadsheetml.sheet;base64,${btoa(String.fromCharCode(...xlsx))},filename:places.xlsx`;
    const preview = await json("POST", "/document-store/loader/preview", {
      body: {
        storeId: store.id,
        loaderId: "microsoftExcel",
        loaderName: "Places",
        loaderConfig: { excelFile: dataUri },
        previewChunkCount: 5,
      },
    });
    expect(preview.chunks).toEqual([
      {
        pageContent: "- City: Oslo",
        metadata: { worksheet: "Places", rowNum: 1, source: "places.xlsx", City: "Oslo", loc: { lines: { from: 1, to: 1 } } },
      },
    ]);
    const up = await upsertForm(
      store.id,
      form([{ name: "deck.pptx", type: "application/octet-stream", data: pptx(["One", "Two"]) }], LOCAL),
    );
    expect(up.status).toBe(200);
    expect(await up.json<any>()).toMatchObject({ numAdded: 2 });
  });

  it("the wizard previews figma through its credential and FIGMA_BASE_URL", async () => {
    const restore = setVars({ FIGMA_BASE_URL: `${hosted()}/figma` });
    try {
      const store = await newStore("figma");
      const cred = await credential("figmaApi", { accessToken: "figd-stand-in" });
      const m = marker();
      const preview = await json("POST", "/document-store/loader/preview", {
        body: {
          storeId: store.id,
          loaderId: "figma",
          loaderName: "Design",
          loaderConfig: { fileKey: m, nodeIds: "0:1", credential: cred },
        },
      });
      expect(preview.chunks[0].pageContent).toContain(`File ${m}`);
      expect(await received(m)).toHaveLength(1);
    } finally {
      restore();
    }
  });
});
