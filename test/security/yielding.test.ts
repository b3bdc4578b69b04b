// Issue 8 point 6: CPU-heavy loops yield to the event loop, so /ping (served by this same isolate)
// answers within a second while they run. Each loop runs here, in the worker's isolate, on an
// input that took LangChain's or our own code seconds in one stretch before it yielded.
import { Document } from "@langchain/core/documents";
import { describe, expect, it } from "vitest";
import { workLimits } from "../../src/lib/limits";
import { LocalHashEmbeddings } from "../../src/providers/embeddings/local-hash";
import { parseCsv } from "../../src/providers/loaders/csv";
import { docxXmlToText } from "../../src/providers/loaders/docx";
import { splitWithin } from "../../src/providers/splitters/paced";
import { buildSplitter } from "../../src/providers/splitters/registry";
import { slowest, whilePinging } from "./pinging";

const limits = workLimits({});
// 5 MB of 1,200-character lines: longer than a chunk, so the recursive splitter splits each again on spaces.
const longLines = Array.from({ length: 4_200 }, (_, i) => `Line ${i} ${"boats nets weather tide ".repeat(50)}`).join("\n");

describe("CPU-heavy loops yield", () => {
  it("recursive character splitting of 5 MB of long lines", async () => {
    const splitter = buildSplitter("recursiveCharacterTextSplitter", {});
    const { result, pings } = await whilePinging(() =>
      splitWithin(splitter, [new Document({ pageContent: longLines, metadata: {} })], limits, "test"),
    );
    expect(result.length).toBe(8_400);
    expect(result[0].pageContent.startsWith("Line 0 boats")).toBe(true);
    expect(result[2].metadata).toEqual({ loc: { lines: { from: 2, to: 2 } } });
    expect(pings.length).toBeGreaterThan(3);
    expect(slowest(pings)).toBeLessThan(1000);
  }, 60_000);

  it("token splitting of 2 MB gives the same chunks as encoding it whole, and yields", async () => {
    const text = longLines.slice(0, 2_000_000);
    const splitter = buildSplitter("tokenTextSplitter", { chunkSize: 500, chunkOverlap: 50 });
    // Building the tokenizer from its rank table (once per isolate) is one stretch that cannot be cut.
    await splitter.splitText("warm up");
    const { result, pings } = await whilePinging(() => splitter.splitText(text));
    expect(slowest(pings)).toBeLessThan(1000);
    // Against one whole encode (js-tiktoken's, as the splitter used before it went by segments).
    const { Tiktoken } = await import("js-tiktoken/lite");
    const tk = new Tiktoken((await import("js-tiktoken/ranks/gpt2")).default as never);
    const ids = tk.encode(text.slice(0, 200_000), [], []);
    const whole = await splitter.splitText(text.slice(0, 200_000));
    expect(whole[0]).toBe(tk.decode(ids.slice(0, 500)));
    expect(whole.length).toBe(Math.ceil((ids.length - 50) / 450));
    expect(result.join("").length).toBeGreaterThan(text.length);
  }, 60_000);

  it("embedding 5,000 long chunks with the local embedder", async () => {
    const texts = longLines.split("\n");
    const { result, pings } = await whilePinging(() => new LocalHashEmbeddings().embedDocuments(texts));
    expect(result).toHaveLength(texts.length);
    expect(slowest(pings)).toBeLessThan(1000);
  }, 60_000);

  it("parsing an 8 MB CSV and a 20 MB DOCX body", async () => {
    const csv = ["a,b,c", ...Array.from({ length: 19_000 }, (_, i) => `${i},"quoted, ${"x".repeat(400)}",${i * 2}`)].join("\n");
    const rows = await whilePinging(() => parseCsv(csv, { limits }));
    expect(rows.result).toHaveLength(19_001);
    expect(rows.result[5][1]).toBe(`quoted, ${"x".repeat(400)}`);
    const xml = "<w:p><w:r><w:t>word</w:t></w:r></w:p>".repeat(550_000);
    const docx = await whilePinging(() => docxXmlToText(xml));
    expect(docx.result.length).toBe(550_000 * 5 - 1);
    expect(slowest([...rows.pings, ...docx.pings])).toBeLessThan(1000);
  }, 60_000);
});
