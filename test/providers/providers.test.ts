import { describe, expect, it } from "vitest";
import { LocalHashEmbeddings, hashEmbed } from "../../src/providers/embeddings/local-hash";
import { buildEmbeddings, defaultEmbeddingsName, supportedEmbeddings } from "../../src/providers/embeddings/registry";
import { quantize } from "../../src/providers/vectorstores/local";
import { defaultVectorStoreName, supportedVectorStores } from "../../src/providers/vectorstores/registry";
import { buildSplitter, supportedSplitters } from "../../src/providers/splitters/registry";
import { utf8Length } from "../../src/lib/utf8";
import { jsonBatches } from "../../src/providers/vectorstores/d1-json";
import { fromBase64, toBase64 } from "../../src/lib/crypto";

const cos = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

describe("local hash embeddings", () => {
  it("are deterministic, normalised and rank shared vocabulary higher", async () => {
    const e = new LocalHashEmbeddings();
    const [a, b, c] = await e.embedDocuments(["The cat sat on the mat", "A cat sat on a mat", "Quarterly revenue rose sharply"]);
    expect(a).toHaveLength(256);
    expect(Math.abs(cos(a, a) - 1)).toBeLessThan(1e-6);
    expect(await e.embedQuery("The cat sat on the mat")).toEqual(a);
    expect(cos(a, b)).toBeGreaterThan(cos(a, c) + 0.3);
    expect(hashEmbed("", 16).every((x) => x === 0)).toBe(true);
  });
  it("quantised vectors keep their cosine within a percent", () => {
    const a = hashEmbed("solar panels on the roof"),
      b = hashEmbed("roof with solar panels");
    const qa = quantize(a),
      qb = quantize(b);
    const approx = qa.codes.reduce((s, x, i) => s + x * qa.scale * qb.codes[i] * qb.scale, 0);
    expect(Math.abs(approx - cos(a, b))).toBeLessThan(0.01);
  });
  it("quantises float32 vectors (as an upsert gets them from the wire) exactly as the same numbers in an array", () => {
    const floats = new Float32Array(hashEmbed("float32 straight from base64"));
    const fromArray = quantize(Array.from(floats));
    const fromFloats = quantize(floats);
    expect(fromFloats.scale).toBe(fromArray.scale);
    expect([...fromFloats.codes]).toEqual([...fromArray.codes]);
    expect(fromFloats.codes.some((c) => c !== 0)).toBe(true);
  });
  it("registry: names, defaults by binding, 400 for unknown names listing the supported ones", async () => {
    expect(supportedEmbeddings()).toEqual(
      expect.arrayContaining(["cloudflareWorkersAIEmbeddings", "openAIEmbeddings", "localHashEmbeddings"]),
    );
    expect(defaultEmbeddingsName({} as never)).toBe("localHashEmbeddings");
    expect(defaultEmbeddingsName({ AI: { run() {} } } as never)).toBe("cloudflareWorkersAIEmbeddings");
    expect(defaultVectorStoreName({} as never)).toBe("localVectorStore");
    expect(supportedVectorStores()).toEqual(expect.arrayContaining(["vectorize", "localVectorStore", "faiss", "memoryVectorStore"]));
    await expect(buildEmbeddings("noSuchEmbeddings", {}, { env: {} as never, getCredential: async () => ({}) })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("Supported: "),
    });
    await expect(
      buildEmbeddings("cloudflareWorkersAIEmbeddings", {}, { env: {} as never, getCredential: async () => ({}) }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining("Workers AI binding AI is not configured") });
  });
});

describe("splitters", () => {
  const text = "# Title\n\nFirst paragraph has several words in it.\n\nSecond paragraph, also words.\n\n## Part\n\nThird one here.";
  it("lists Flowise names", () => {
    expect(supportedSplitters()).toEqual([
      "characterTextSplitter",
      "codeTextSplitter",
      "htmlToMarkdownTextSplitter",
      "markdownTextSplitter",
      "recursiveCharacterTextSplitter",
      "tokenTextSplitter",
    ]);
  });
  it("recursiveCharacterTextSplitter honours chunkSize, chunkOverlap and separators", async () => {
    const parts = await buildSplitter("recursiveCharacterTextSplitter", { chunkSize: "40", chunkOverlap: "0" }).splitText(text);
    expect(parts.every((p) => p.length <= 40)).toBe(true);
    expect(parts.length).toBeGreaterThan(2);
    const bySep = await buildSplitter("recursiveCharacterTextSplitter", {
      chunkSize: 80,
      chunkOverlap: 0,
      separators: '["## ", " "]',
    }).splitText(text);
    expect(bySep.some((p) => /^(## )?Part/.test(p))).toBe(true);
  });
  it("characterTextSplitter splits on its separator (escapes honoured)", async () => {
    const parts = await buildSplitter("characterTextSplitter", { chunkSize: 4, chunkOverlap: 0, separator: "\\n\\n" }).splitText(
      "aaa\n\nbbb\n\nccc",
    );
    expect(parts).toEqual(["aaa", "bbb", "ccc"]);
  });
  it("markdownTextSplitter splits at headings first", async () => {
    const parts = await buildSplitter("markdownTextSplitter", { chunkSize: 60, chunkOverlap: 0 }).splitText(text);
    expect(parts.some((p) => p.startsWith("## Part"))).toBe(true);
  });
  it("tokenTextSplitter counts tokens with local ranks (no network) and overlaps", async () => {
    const parts = await buildSplitter("tokenTextSplitter", { chunkSize: 5, chunkOverlap: 1 }).splitText(
      "one two three four five six seven eight nine ten",
    );
    expect(parts[0]).toBe("one two three four five");
    expect(parts[1].startsWith(" five")).toBe(true);
    const cl = await buildSplitter("tokenTextSplitter", { chunkSize: 3, chunkOverlap: 0, encodingName: "cl100k_base" }).splitText(
      "hello world again and again",
    );
    expect(cl.length).toBeGreaterThan(1);
    expect(() => buildSplitter("tokenTextSplitter", { encodingName: "p50k_edit" })).toThrow(/Supported: gpt2, cl100k_base/);
  }, 30_000); // decoding the rank tables takes seconds on a loaded 2-core machine
  it("bad settings are 400s", () => {
    expect(() => buildSplitter("recursiveCharacterTextSplitter", { chunkSize: 100, chunkOverlap: 100 })).toThrow(/chunkOverlap/);
    expect(() => buildSplitter("recursiveCharacterTextSplitter", { chunkSize: "big" })).toThrow(/chunkSize/);
    expect(() => buildSplitter("recursiveCharacterTextSplitter", { separators: "not json" })).toThrow(/separators/);
    expect(() => buildSplitter("semanticSplitter", {})).toThrow(/Supported: characterTextSplitter/);
  });
});

describe("D1 JSON batches", () => {
  it("split rows by bytes, each a JSON array", () => {
    const rows = Array.from({ length: 100 }, (_, i) => [i, "x".repeat(1000)]);
    const parts = jsonBatches(rows, 10_000);
    expect(parts.length).toBeGreaterThan(9);
    expect(parts.every((p) => new TextEncoder().encode(p).length <= 10_000)).toBe(true);
    expect(parts.flatMap((p) => JSON.parse(p))).toEqual(rows);
  });
  it("count UTF-8 bytes, not characters: multibyte text stays under the limit", () => {
    // 300 characters but 300 × 3–4 bytes: measured in characters, 3 rows would seem to fit in 2,000.
    const rows = Array.from({ length: 12 }, (_, i) => [i, "€".repeat(200) + "😀".repeat(50) + "é".repeat(50)]);
    const parts = jsonBatches(rows, 2_000);
    expect(parts.every((p) => new TextEncoder().encode(p).length <= 2_000)).toBe(true);
    expect(parts.flatMap((p) => JSON.parse(p))).toEqual(rows);
    for (const s of ["", "abc", "é€😀", "\ud800x", "ascii then é", "\u007f", "\u0080", `${"a".repeat(3000)}😀`])
      expect(utf8Length(s)).toBe(new TextEncoder().encode(s).length);
  });
});

describe("base64", () => {
  it("round-trips every byte value and refuses text that is not base64", () => {
    const bytes = Uint8Array.from({ length: 256 * 3 }, (_, i) => i % 256);
    const text = toBase64(bytes);
    expect(text).toBe(btoa(String.fromCharCode(...bytes)));
    expect(fromBase64(text)).toEqual(bytes);
    expect(() => fromBase64("not*base64!")).toThrow();
  });
});
