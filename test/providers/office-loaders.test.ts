// The Office and EPUB loaders over archives built here with fflate: microsoftExcel (a document per
// row, SheetJS's header rules), microsoftPowerpoint (a document per slide, presentation order),
// microsoftWord, epubFile (spine order, NCX titles, perChapter / perFile), fileLoader's dispatch by
// extension and MIME type, the shared inflate budget (a zip bomb stops at DOCX_MAX_UNZIPPED_MB), and
// the HTML → Markdown converter of htmlToMarkdownTextSplitter.
import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { workLimits } from "../../src/lib/limits";
import { fileLoaderFor } from "../../src/providers/loaders/file-loader";
import { loadDocuments, loaderForFile, supportedLoaders } from "../../src/providers/loaders/registry";
import type { LoaderFile } from "../../src/providers/loaders/types";
import { htmlToMarkdown } from "../../src/providers/splitters/html-markdown";
import { buildSplitter, supportedSplitters } from "../../src/providers/splitters/registry";
import { makeDocx, makePdf } from "./docs";

const XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const PPTX_MIME = "application/vnd.openxmlformats-officedocument.presentationml.presentation";
const zip = (parts: Record<string, string>) => zipSync(Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, strToU8(v)])));
const load = (name: string, files: LoaderFile[], config: Record<string, unknown> = {}, env: Record<string, string> = {}) =>
  loadDocuments(name, { config, files, outbound: {}, maxBytes: 8 << 20, limits: workLimits(env) });
const err = async (p: Promise<unknown>) =>
  (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status: number; message: string };

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
/** A workbook of two sheets: "People" (a header row with a repeat and a blank, three rows) and "Notes" (by r:id). */
function makeXlsx(extraRows = ""): Uint8Array {
  const c = (ref: string, v: string, t?: string) => `<c r="${ref}"${t ? ` t="${t}"` : ""}><v>${v}</v></c>`;
  const people =
    `<worksheet ${NS}><sheetData>` +
    `<row r="1">${c("A1", "0", "s")}${c("B1", "1", "s")}${c("D1", "0", "s")}</row>` +
    `<row r="2">${c("A2", "2", "s")}${c("B2", "42")}${c("C2", "ignored?", "str")}${c("D2", "1", "b")}</row>` +
    `<row r="3"></row>` +
    `<row r="4"><c r="A4" t="inlineStr"><is><t>Bo &amp; Co</t></is></c>${c("B4", "7.5")}</row>${extraRows}` +
    `</sheetData></worksheet>`;
  const notes = `<worksheet ${NS}><sheetData><row r="1">${c("A1", "3", "s")}</row><row r="2">${c("A2", "4", "s")}</row></sheetData></worksheet>`;
  const strings = ["Name", "Age", "Ada", "Note", "<rPh>"].map((s) => s.replace("<", "&lt;").replace(">", "&gt;"));
  return zip({
    "xl/workbook.xml": `<workbook ${NS} ${R}><sheets><sheet name="People" sheetId="1" r:id="rId7"/><sheet name="Notes" sheetId="2" r:id="rId8"/></sheets></workbook>`,
    "xl/_rels/workbook.xml.rels":
      '<Relationships><Relationship Id="rId7" Target="worksheets/people.xml"/><Relationship Id="rId8" Target="/xl/worksheets/notes.xml"/></Relationships>',
    "xl/sharedStrings.xml": `<sst ${NS}>${strings
      .map((s, i) => (i === 0 ? `<si><r><t>Na</t></r><r><t>me</t></r><rPh><t>ナ</t></rPh></si>` : `<si><t>${s}</t></si>`))
      .join("")}</sst>`,
    "xl/worksheets/people.xml": people,
    "xl/worksheets/notes.xml": notes,
  });
}

const slide = (...paras: string[]) =>
  `<p:sld><p:cSld><p:spTree><p:sp><p:txBody>${paras
    .map(
      (p) =>
        `<a:p>${p
          .split("|")
          .map((r) => `<a:r><a:rPr lang="en"/><a:t>${r}</a:t></a:r>`)
          .join("")}</a:p>`,
    )
    .join("")}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>`;
function makePptx(): Uint8Array {
  return zip({
    "ppt/presentation.xml":
      '<p:presentation><p:sldIdLst><p:sldId id="256" r:id="rId3"/><p:sldId id="257" r:id="rId2"/><p:sldId id="258" r:id="rId4"/></p:sldIdLst></p:presentation>',
    "ppt/_rels/presentation.xml.rels":
      '<Relationships><Relationship Id="rId2" Target="slides/slide1.xml"/><Relationship Id="rId3" Target="slides/slide2.xml"/><Relationship Id="rId4" Target="slides/slide3.xml"/></Relationships>',
    "ppt/slides/slide1.xml": slide("Second in order", "Tom &amp; |Jerry"),
    "ppt/slides/slide2.xml": slide("Welcome", "Agenda"),
    "ppt/slides/slide3.xml": slide(),
  });
}

function makeEpub(): Uint8Array {
  const xhtml = (title: string, body: string) =>
    `<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>${title}</title><style>p{}</style></head><body>${body}</body></html>`;
  return zip({
    mimetype: "application/epub+zip",
    "META-INF/container.xml":
      '<container><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>',
    "OEBPS/content.opf":
      '<package><manifest><item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>' +
      '<item id="c2" href="text/two.xhtml" media-type="application/xhtml+xml"/><item id="c1" href="text/one.xhtml" media-type="application/xhtml+xml"/>' +
      '<item id="css" href="style.css" media-type="text/css"/></manifest>' +
      '<spine toc="ncx"><itemref idref="c1"/><itemref idref="css"/><itemref idref="c2"/></spine></package>',
    "OEBPS/toc.ncx":
      '<ncx><navMap><navPoint id="n1"><navLabel><text>Chapter One</text></navLabel><content src="text/one.xhtml#start"/></navPoint>' +
      '<navPoint id="n2"><navLabel><text>Chapter Two</text></navLabel><content src="text/two.xhtml"/></navPoint></navMap></ncx>',
    "OEBPS/text/one.xhtml": xhtml("One", "<h1>The Start</h1><p>It was a dark &amp; stormy night.</p>"),
    "OEBPS/text/two.xhtml": xhtml("Two", "<h1>The End</h1><p>They lived happily.</p>"),
  });
}

describe("microsoftExcel", () => {
  it("a document per row of every sheet: SheetJS's header names, typed values, metadata with worksheet and rowNum", async () => {
    const docs = await load("microsoftExcel", [{ name: "people.xlsx", mime: XLSX_MIME, bytes: makeXlsx() }]);
    expect(docs.map((d) => d.pageContent)).toEqual([
      "- Name: Ada\n- Age: 42\n- __EMPTY: ignored?\n- Name_1: true\n",
      "- Name: Bo & Co\n- Age: 7.5\n",
      "- Note: <rPh>\n",
    ]);
    expect(docs[0].metadata).toEqual({
      worksheet: "People",
      rowNum: 1,
      source: "people.xlsx",
      Name: "Ada",
      Age: 42,
      __EMPTY: "ignored?",
      Name_1: true,
    });
    expect(docs[1].metadata).toMatchObject({ worksheet: "People", rowNum: 3 });
    expect(docs[2].metadata).toMatchObject({ worksheet: "Notes", rowNum: 1, Note: "<rPh>" });
  });

  it("rows beyond CSV_MAX_ROWS, a binary .xls and a non-zip are refused", async () => {
    const many = Array.from({ length: 30 }, (_, i) => `<row r="${i + 5}"><c r="A${i + 5}"><v>${i}</v></c></row>`).join("");
    const tooMany = await err(
      load("microsoftExcel", [{ name: "big.xlsx", mime: XLSX_MIME, bytes: makeXlsx(many) }], {}, { CSV_MAX_ROWS: "10" }),
    );
    expect(tooMany).toMatchObject({ status: 413, message: "XLSX big.xlsx: more than 10 rows (CSV_MAX_ROWS)" });
    const xls = await err(
      load("microsoftExcel", [{ name: "old.xls", mime: "application/vnd.ms-excel", bytes: new Uint8Array([0xd0, 0xcf, 0x11]) }]),
    );
    expect(xls).toMatchObject({ status: 400, message: expect.stringContaining("save it as .xlsx") });
    const junk = await err(load("microsoftExcel", [{ name: "junk.xlsx", mime: XLSX_MIME, bytes: strToU8("not a zip at all") }]));
    expect(junk).toMatchObject({ status: 400, message: expect.stringContaining("is not a readable XLSX (zip)") });
  });

  it("a zip bomb stops at DOCX_MAX_UNZIPPED_MB, counted across the parts read", async () => {
    const rows = `<row r="9"><c r="A9" t="inlineStr"><is><t>${"z".repeat(3 << 20)}</t></is></c></row>`;
    const bytes = makeXlsx(rows);
    expect(bytes.length).toBeLessThan(64 * 1024);
    const bomb = await err(load("microsoftExcel", [{ name: "bomb.xlsx", mime: XLSX_MIME, bytes }], {}, { DOCX_MAX_UNZIPPED_MB: "2" }));
    expect(bomb).toMatchObject({ status: 413, message: "XLSX bomb.xlsx: more than 2 MB unzipped (DOCX_MAX_UNZIPPED_MB)" });
  });
});

describe("microsoftPowerpoint and microsoftWord", () => {
  it("PowerPoint: a document per slide with text, in the presentation's order; runs joined, paragraphs as lines", async () => {
    const docs = await load("microsoftPowerpoint", [{ name: "deck.pptx", mime: PPTX_MIME, bytes: makePptx() }], { metadata: { deck: 1 } });
    expect(docs.map((d) => [d.pageContent, d.metadata])).toEqual([
      ["Welcome\nAgenda", { slideNumber: 1, documentType: "powerpoint", source: "deck.pptx", deck: 1 }],
      ["Second in order\nTom & Jerry", { slideNumber: 2, documentType: "powerpoint", source: "deck.pptx", deck: 1 }],
    ]);
    const empty = await err(load("microsoftPowerpoint", [{ name: "x.pptx", mime: PPTX_MIME, bytes: zip({ "a.txt": "x" }) }]));
    expect(empty).toMatchObject({ status: 400, message: "File x.pptx is not a PPTX: it has no slides" });
  });

  it("Word: the DOCX's paragraphs as one document with documentType word", async () => {
    const docs = await load("microsoftWord", [
      { name: "memo.docx", mime: "application/octet-stream", bytes: makeDocx(["Hello", "World"]) },
    ]);
    expect(docs.map((d) => [d.pageContent, d.metadata])).toEqual([["Hello\nWorld", { documentType: "word", source: "memo.docx" }]]);
  });
});

describe("epubFile", () => {
  it("perChapter: the spine's chapters in order, titled from the NCX; perFile: one document", async () => {
    const book = { name: "book.epub", mime: "application/epub+zip", bytes: makeEpub() };
    const chapters = await load("epubFile", [book]);
    expect(chapters.map((d) => [d.pageContent, d.metadata])).toEqual([
      ["The Start\nIt was a dark & stormy night.", { source: "book.epub", chapter: "Chapter One" }],
      ["The End\nThey lived happily.", { source: "book.epub", chapter: "Chapter Two" }],
    ]);
    const whole = await load("epubFile", [book], { usage: "perFile" });
    expect(whole.map((d) => [d.pageContent, d.metadata])).toEqual([
      ["The Start\nIt was a dark & stormy night.\n\nThe End\nThey lived happily.", { source: "book.epub" }],
    ]);
    const bad = await err(load("epubFile", [{ ...book, bytes: zip({ "a.txt": "x" }) }]));
    expect(bad).toMatchObject({ status: 400, message: "File book.epub is not a EPUB: META-INF/container.xml is missing" });
  });
});

describe("fileLoader", () => {
  it("reads each file with the loader of its kind: text, CSV, JSON Lines (pointerName), PDF (usage), XLSX, PPTX, DOCX, EPUB", async () => {
    const files: LoaderFile[] = [
      { name: "notes.md", mime: "text/markdown", bytes: strToU8("# Notes\nsome text") },
      { name: "rows.csv", mime: "text/csv", bytes: strToU8("a,b\n1,2\n") },
      { name: "lines.jsonl", mime: "application/jsonl", bytes: strToU8('{"t":"one"}\n{"t":"two"}\n') },
      { name: "doc.pdf", mime: "application/pdf", bytes: makePdf([["page one"], ["page two"]]) },
      { name: "people.xlsx", mime: XLSX_MIME, bytes: makeXlsx() },
      { name: "deck.pptx", mime: PPTX_MIME, bytes: makePptx() },
      { name: "memo.docx", mime: "application/octet-stream", bytes: makeDocx(["Memo"]) },
      { name: "book.epub", mime: "application/epub+zip", bytes: makeEpub() },
    ];
    const docs = await load("fileLoader", files, { pointerName: "t", usage: "perFile", omitMetadataKeys: "line" });
    const bySource = (s: string) => docs.filter((d) => d.metadata.source === s).map((d) => d.pageContent);
    expect(bySource("notes.md")).toEqual(["# Notes\nsome text"]);
    expect(bySource("rows.csv")).toEqual(["a: 1\nb: 2"]);
    expect(bySource("lines.jsonl")).toEqual(["one", "two"]);
    expect(bySource("doc.pdf")).toHaveLength(1);
    expect(bySource("doc.pdf")[0]).toContain("page two");
    expect(bySource("people.xlsx")).toHaveLength(3);
    expect(bySource("deck.pptx")).toEqual(["Welcome\nAgenda", "Second in order\nTom & Jerry"]);
    expect(bySource("memo.docx")).toEqual(["Memo"]);
    expect(bySource("book.epub")).toHaveLength(2);
    expect(docs.every((d) => d.metadata.line === undefined)).toBe(true);
  });

  it("picks a kind by MIME type without an extension; a binary file of unknown kind is a 400", async () => {
    expect(fileLoaderFor({ name: "file", mime: "application/pdf" })).toBe("pdfFile");
    expect(fileLoaderFor({ name: "file", mime: XLSX_MIME })).toBe("microsoftExcel");
    expect(fileLoaderFor({ name: "x.bin", mime: "application/octet-stream" })).toBe("textFile");
    const bin = await err(load("fileLoader", [{ name: "x.bin", mime: "application/octet-stream", bytes: new Uint8Array([1, 0, 2]) }]));
    expect(bin).toMatchObject({ status: 400, message: "File x.bin is not a text file" });
    expect(await err(load("fileLoader", []))).toMatchObject({ status: 400 });
  });

  it("is registered with the Office loaders; uploads of those kinds name them", () => {
    expect(supportedLoaders()).toEqual(
      expect.arrayContaining(["fileLoader", "microsoftWord", "microsoftExcel", "microsoftPowerpoint", "epubFile"]),
    );
    expect(["a.xlsx", "a.XLSM", "b.pptx", "c.epub", "d.docx"].map(loaderForFile)).toEqual([
      "microsoftExcel",
      "microsoftExcel",
      "microsoftPowerpoint",
      "epubFile",
      "docxFile",
    ]);
  });
});

describe("htmlToMarkdownTextSplitter", () => {
  it("HTML as Markdown: headings, lists, links, emphasis, code, tables; entities decoded, scripts dropped", async () => {
    const html = `<html><head><title>T</title><style>h1{}</style></head><body>
      <h1>Guide &amp; Intro</h1><p>Read <a href="https://x.test/a b">the <b>docs</b></a> or <em>not</em>.</p>
      <script>alert("no")</script>
      <ul><li>One</li><li>Two<ol start="3"><li>Three</li><li>Four</li></ol></li></ul>
      <h2>Code</h2><p>Use <code>npm&nbsp;i</code>:</p><pre><code>let a = 1;
  a &lt; 2;</code></pre>
      <table><tr><th>Name</th><th>Age</th></tr><tr><td>Ada</td><td>36</td></tr></table>
      <p>Line<br>break</p><hr><img src="/i.png" alt="pic"></body></html>`;
    expect(await htmlToMarkdown(html)).toBe(
      [
        "# Guide & Intro",
        "",
        "Read [the **docs**](https://x.test/a%20b) or _not_.",
        "",
        "- One",
        "- Two",
        "  3. Three",
        "  4. Four",
        "",
        "## Code",
        "",
        "Use `npm i`:",
        "",
        "```",
        "let a = 1;",
        "  a < 2;",
        "```",
        "",
        "| Name | Age |",
        "| --- | --- |",
        "| Ada | 36 |",
        "",
        "Line",
        "break",
        "",
        "---",
        "",
        "![pic](/i.png)",
      ].join("\n"),
    );
  });

  it("splits the Markdown as the Markdown splitter does, with chunkSize and chunkOverlap", async () => {
    expect(supportedSplitters()).toContain("htmlToMarkdownTextSplitter");
    const splitter = buildSplitter("htmlToMarkdownTextSplitter", { chunkSize: "60", chunkOverlap: "0" });
    const html = `<h1>First</h1><p>${"alpha ".repeat(6)}</p><h2>Second</h2><p>${"beta ".repeat(6)}</p>`;
    const docs = await splitter.splitDocuments([{ pageContent: html, metadata: { source: "a.html" } }]);
    expect(docs.map((d) => d.pageContent)).toEqual([`# First\n\n${"alpha ".repeat(6).trim()}`, `## Second\n\n${"beta ".repeat(6).trim()}`]);
    expect(docs[0].metadata).toMatchObject({ source: "a.html" });
    expect(() => buildSplitter("htmlToMarkdownTextSplitter", { chunkSize: "10", chunkOverlap: "20" })).toThrow(/chunkOverlap/);
  });
});
