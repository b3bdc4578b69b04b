// Issue 31 item 1: the loader page with each kind of input the issue names — DOCX, CSV and JSON
// files as the page's data URIs, and a web page by URL — previewed, saved and processed.
import { afterEach, describe, expect, it, vi } from "vitest";
import { json } from "../helpers";
import { DOCX_MIME, makeDocx } from "../providers/docs";
import { loadersOf, newStore } from "../routes/document-store-helpers";
import { dataUri } from "./helpers";

const ONE_EACH = { splitterId: "characterTextSplitter", splitterConfig: { chunkSize: 2000, chunkOverlap: 0, separator: "\n\n" } };

async function previewOf(storeId: string, loaderId: string, loaderConfig: Record<string, unknown>) {
  return json("POST", "/document-store/loader/preview", { body: { storeId, loaderId, loaderConfig, ...ONE_EACH, previewChunkCount: -1 } });
}

describe("the loader page with other inputs", () => {
  afterEach(() => vi.restoreAllMocks());

  it("DOCX, CSV and JSON files: each previewed with the loader's own metadata", async () => {
    const store = await newStore("wizard kinds");
    const docx = await previewOf(store.id, "docxFile", {
      docxFile: dataUri("notes.docx", DOCX_MIME, makeDocx(["Tides rise twice a day.", "Gulls follow the ferries."])),
    });
    expect(docx.totalChunks).toBe(1);
    expect(docx.chunks[0]).toMatchObject({
      pageContent: expect.stringMatching(/Tides rise[\s\S]*Gulls follow/),
      metadata: { source: "notes.docx" },
    });

    const csv = await previewOf(store.id, "csvFile", { csvFile: dataUri("boats.csv", "text/csv", "name,length\nOsprey,12\nPetrel,9\n") });
    expect(csv.totalChunks).toBe(2);
    expect(csv.chunks.map((c: any) => c.pageContent)).toEqual(["name: Osprey\nlength: 12", "name: Petrel\nlength: 9"]);
    expect(csv.chunks[1].metadata).toMatchObject({ source: "boats.csv", line: 2 });

    const list = JSON.stringify([
      { port: "Dover", note: "white cliffs" },
      { port: "Calais", note: "ferry terminal" },
    ]);
    const jsonFile = await previewOf(store.id, "jsonFile", {
      jsonFile: dataUri("ports.json", "application/json", list),
      separateByObject: true,
    });
    expect(jsonFile.totalChunks).toBe(2);
    expect(jsonFile.chunks[1].pageContent).toContain("Calais");

    // Several files in one input: the page's JSON list of data URIs.
    const two = JSON.stringify([dataUri("a.txt", "text/plain", "Alpha text."), dataUri("b.txt", "text/plain", "Beta text.")]);
    const saved = await json("POST", "/document-store/loader/save", {
      body: { storeId: store.id, loaderId: "textFile", loaderConfig: { txtFile: two }, ...ONE_EACH },
    });
    expect(saved.files.map((f: any) => f.name)).toEqual(["a.txt", "b.txt"]);
    expect(saved.source).toBe("a.txt, b.txt");
    const page = await json("POST", `/document-store/loader/process/${saved.id}`, { body: { storeId: store.id } });
    expect(page.chunks.map((c: any) => c.pageContent)).toEqual(["Alpha text.", "Beta text."]);
  });

  it("a file over MAX_BODY_MB once in base64 is taken (the wizard's body limit is a MAX_UPLOAD_MB file's)", async () => {
    const store = await newStore("wizard big body");
    const line = "Ferries cross the strait every hour in summer and every two hours in winter.\n\n";
    const text = line.repeat(Math.ceil((4.5 * 1024 * 1024) / line.length)); // 4.5 MB: 6 MB as base64, over MAX_BODY_MB (5)
    const preview = await previewOf(store.id, "textFile", { txtFile: dataUri("ferries.txt", "text/plain", text) });
    expect(preview.totalChunks).toBeGreaterThan(2000);
    expect(preview.chunks.length).toBe(preview.totalChunks);
  }, 60_000);

  it("a web page: the scraper's text previewed, then saved and processed with the URL as its source", async () => {
    const html =
      "<html><head><title>Tide tables</title></head><body><h1>Tides</h1><p>High water at Dover is at noon today.</p></body></html>";
    const spy = vi
      .spyOn(globalThis, "fetch")
      .mockImplementation(async () => new Response(html, { headers: { "content-type": "text/html" } }));
    const store = await newStore("wizard web");
    // The page sends every input of the node, its defaults included.
    const loaderConfig = {
      url: "https://tides.example.com/dover",
      relativeLinksMethod: "webCrawl",
      limit: "10",
      selector: "",
      metadata: "",
    };
    const preview = await previewOf(store.id, "cheerioWebScraper", loaderConfig);
    expect(preview.chunks).toEqual([
      { pageContent: "Tides\nHigh water at Dover is at noon today.", metadata: expect.objectContaining({ title: "Tide tables" }) },
    ]);
    const body = { storeId: store.id, loaderId: "cheerioWebScraper", loaderConfig, ...ONE_EACH };
    const saved = await json("POST", "/document-store/loader/save", { body });
    expect(saved).toMatchObject({ source: "https://tides.example.com/dover", files: [], status: "SYNCING" });
    await json("POST", `/document-store/loader/process/${saved.id}`, { body });
    const s = await json("GET", `/document-store/store/${store.id}`);
    expect(loadersOf(s)).toMatchObject([{ id: saved.id, loaderId: "cheerioWebScraper", status: "SYNC", totalChunks: 1 }]);
    expect(spy).toHaveBeenCalled();
  });
});
