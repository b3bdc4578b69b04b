// Issue 8 point 6 (and the deep-JSON part of point 7): files built to make the worker do unbounded
// work are refused with a 413 (400 for nesting) that names the limit's var, nothing is stored, and
// /ping keeps answering within a second while each request runs (one isolate serves them all).
import { env } from "cloudflare:workers";
import { strToU8 } from "fflate";
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../src/lib/json-depth";
import { flow, ref, standinModel } from "../engine/retrieval-flows";
import { call, expectError, json } from "../helpers";
import { makePdf } from "../providers/docs";
import { LOCAL, form, newStore, snapshot, upsertForm } from "../routes/document-store-helpers";
import { setVars } from "./helpers";
import { manyEntriesDocx, zipBombDocx } from "./hostile-files";
import { arriving, multipart, slowest, whilePinging } from "./pinging";

const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/** Uploads one file to a fresh store while pinging; answers the error body, the pings and whether the store changed. */
async function refused(
  file: { name: string; type: string; data: string | Uint8Array },
  status: number,
  fields: Record<string, unknown> = {},
) {
  const store = await newStore();
  const before = await snapshot(store.id);
  const body = await multipart(form([file], { ...LOCAL, ...fields }));
  const { result, pings } = await whilePinging(() =>
    call("POST", `/document-store/upsert/${store.id}`, { raw: arriving(body.raw), headers: body.headers }),
  );
  const error = await expectError(result, status);
  expect(await snapshot(store.id)).toEqual(before);
  expect(slowest(pings)).toBeLessThan(1000);
  return error;
}

describe("document loaders: each limit refuses its attack", () => {
  it("a DOCX zip bomb (0.9 MB inflating to 300 MB, declaring 4 KB) stops at DOCX_MAX_UNZIPPED_MB", async () => {
    const bomb = zipBombDocx(300, 4096);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const body = await refused({ name: "bomb.docx", type: DOCX, data: bomb }, 413);
    expect(body.message).toBe("DOCX bomb.docx: more than 50 MB unzipped (DOCX_MAX_UNZIPPED_MB)");
  }, 60_000);

  it("a DOCX declaring its real unzipped size is refused before anything is inflated", async () => {
    const body = await refused({ name: "honest.docx", type: DOCX, data: zipBombDocx(60) }, 413);
    expect(body.message).toBe("DOCX honest.docx: more than 50 MB unzipped (DOCX_MAX_UNZIPPED_MB); it has 61");
  }, 60_000);

  it("a DOCX of 10,000 zip entries stops at DOCX_MAX_ENTRIES", async () => {
    const body = await refused({ name: "entries.docx", type: DOCX, data: manyEntriesDocx(10_000) }, 413);
    expect(body.message).toBe("DOCX entries.docx: more than 5000 zip entries (DOCX_MAX_ENTRIES); it has 10002");
  }, 60_000);

  it("a 5,000-page PDF stops at PDF_MAX_PAGES before any page is read (a flat page tree before pdf.js opens it)", async () => {
    const pdf = makePdf(Array.from({ length: 5000 }, (_, i) => [`Page ${i + 1} of a very long report.`]));
    const body = await refused({ name: "long.pdf", type: "application/pdf", data: pdf }, 413);
    expect(body.message).toBe("PDF long.pdf: more than 1000 pages (PDF_MAX_PAGES); it has at least 5000");
  }, 60_000);

  it("a 1,000,000-column CSV stops at CSV_MAX_COLUMNS; 30,000 rows stop at CSV_MAX_ROWS", async () => {
    const header = Array.from({ length: 1_000_000 }, (_, i) => `c${i}`).join(",");
    expect(header.length).toBeLessThan(8 * 1024 * 1024); // under MAX_TEXT_MB: the columns are what is refused
    const wide = await refused({ name: "wide.csv", type: "text/csv", data: `${header}\n1,2\n` }, 413);
    expect(wide.message).toBe("CSV file wide.csv: more than 2000 columns (CSV_MAX_COLUMNS)");
    const rows = ["name,score", ...Array.from({ length: 30_000 }, (_, i) => `row${i},${i}`)].join("\n");
    const tall = await refused({ name: "tall.csv", type: "text/csv", data: rows }, 413);
    expect(tall.message).toBe("CSV file tall.csv: more than 20000 rows (CSV_MAX_ROWS)");
  }, 60_000);

  it("JSON nested 100,000 deep is a 400 (jsonFile, and a jsonlinesFile line)", async () => {
    const deep = `${"[".repeat(100_000)}"x"${"]".repeat(100_000)}`;
    const file = await refused({ name: "deep.json", type: "application/json", data: deep }, 400);
    expect(file.message).toBe(`File deep.json nests deeper than ${MAX_JSON_DEPTH} levels`);
    const lines = await refused({ name: "deep.jsonl", type: "application/jsonl", data: `{"text":"fine"}\n{"a":${deep}}\n` }, 400);
    expect(lines.message).toBe(`File deep.jsonl line 2 nests deeper than ${MAX_JSON_DEPTH} levels`);
  }, 60_000);

  // Text and JSON Lines files are read a window at a time (issue 18): their limits are
  // MAX_STREAMED_FILE_MB and MAX_STREAMED_CHUNKS, set low here so that the tests stay small.
  it("a JSON-lines file of 500,000 lines stops at MAX_STREAMED_CHUNKS", async () => {
    const restore = setVars({ MAX_STREAMED_CHUNKS: "5000" });
    try {
      const lines = Array.from({ length: 500_000 }, (_, i) => `{"n":${i}}`).join("\n");
      const body = await refused({ name: "many.jsonl", type: "application/jsonl", data: lines }, 413);
      expect(body.message).toBe("What loader jsonlinesFile read: more than 5000 chunks (MAX_STREAMED_CHUNKS)");
    } finally {
      restore();
    }
  }, 60_000);

  it("a 12 MB text file stops at MAX_STREAMED_FILE_MB; a text split too finely stops at MAX_STREAMED_CHUNKS", async () => {
    const restore = setVars({ MAX_STREAMED_FILE_MB: "8", MAX_STREAMED_CHUNKS: "20000" });
    try {
      const big = "All work and no play makes Jack a dull boy.\n".repeat(290_000);
      const text = await refused({ name: "big.txt", type: "text/plain", data: big }, 413);
      expect(text.message).toBe("File big.txt: more than 8 MB (MAX_STREAMED_FILE_MB); it has 13");
      const fine = "word ".repeat(200_000);
      const chunks = await refused({ name: "fine.txt", type: "text/plain", data: fine }, 413, {
        splitter: { name: "characterTextSplitter", config: { chunkSize: 10, chunkOverlap: 0, separator: " " } },
      });
      expect(chunks.message).toBe("What loader textFile read: more than 20000 chunks (MAX_STREAMED_CHUNKS)");
    } finally {
      restore();
    }
  }, 60_000);

  it("a JSON file over MAX_TEXT_MB (loaders that hold their text whole keep that limit)", async () => {
    const big = JSON.stringify(Array.from({ length: 250_000 }, (_, i) => `All work and no play makes Jack a dull boy ${i}.`));
    const body = await refused({ name: "big.json", type: "application/json", data: big }, 413);
    expect(body.message).toBe("File big.json: more than 10 MB of text (MAX_TEXT_MB); it has 13");
  }, 60_000);
});

describe("the same limits on a chatflow's upsert (POST /vector/upsert)", () => {
  it("deep JSON and a zip bomb are refused there too, with no vectors and no files kept", async () => {
    const refusedOnChatflow = async (loader: string, file: { name: string; type: string; data: string | Uint8Array }, status: number) => {
      const flowData = flow([
        ["loader_0", loader, "Document Loaders", {}],
        ["emb_0", "localHashEmbeddings", "Embeddings"],
        ["vs_0", "memoryVectorStore", "Vector Stores", { document: [ref("loader_0")], embeddings: ref("emb_0") }, { output: "retriever" }],
        standinModel(),
        ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref("vs_0") }],
      ] as never);
      const id = (await json("POST", "/chatflows", { body: { name: "upsert", flowData } })).id as string;
      const body = await multipart(form([file]));
      const { result, pings } = await whilePinging(() =>
        call("POST", `/vector/upsert/${id}`, { raw: arriving(body.raw), headers: body.headers }),
      );
      const error = await expectError(result, status);
      expect(slowest(pings)).toBeLessThan(1000);
      const vectors = await env.DB.prepare("SELECT COUNT(*) AS n FROM vector_document WHERE namespace = ?")
        .bind(`${id}_vs_0`)
        .first<{ n: number }>();
      expect(vectors?.n).toBe(0);
      expect((await env.FILES.list({ prefix: `${id}/` })).objects).toEqual([]);
      return error.message;
    };
    const deep = `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`;
    expect(await refusedOnChatflow("jsonFile", { name: "deep.json", type: "application/json", data: deep }, 400)).toContain(
      `nests deeper than ${MAX_JSON_DEPTH} levels`,
    );
    expect(await refusedOnChatflow("docxFile", { name: "bomb.docx", type: DOCX, data: zipBombDocx(300, 4096) }, 413)).toContain(
      "more than 50 MB unzipped (DOCX_MAX_UNZIPPED_MB)",
    );
  }, 60_000);

  it("a small file under every limit still upserts (the limits refuse only what exceeds them)", async () => {
    const store = await newStore();
    const res = await upsertForm(
      store.id,
      form([{ name: "ok.json", type: "application/json", data: strToU8(JSON.stringify({ a: { b: ["one", "two"] } })) }], LOCAL),
    );
    expect(res.status).toBe(200);
    expect((await res.json<any>()).numAdded).toBe(2);
  });
});
