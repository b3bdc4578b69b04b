import { describe, expect, it } from "vitest";
import { loadDocuments, loaderForFile, supportedLoaders } from "../../src/providers/loaders/registry";
import { docxXmlToText } from "../../src/providers/loaders/docx";
import { parseCsv } from "../../src/providers/loaders/csv";
import { workLimits } from "../../src/lib/limits";
import { htmlToText } from "../../src/providers/loaders/web";
import { DOCX_MIME, makeDocx, makePdf } from "./docs";

const enc = new TextEncoder();
const input = (config: Record<string, unknown>, files: Array<{ name: string; mime: string; bytes: Uint8Array }> = []) => ({
  config,
  files,
  outbound: {},
  maxBytes: 1 << 20,
  limits: workLimits({}),
});
const file = (name: string, text: string, mime = "text/plain") => ({ name, mime, bytes: enc.encode(text) });

describe("loaders", () => {
  it("lists Flowise names, txtFile alias included", () => {
    expect(supportedLoaders()).toEqual(
      expect.arrayContaining([
        "plainText",
        "textFile",
        "txtFile",
        "pdfFile",
        "csvFile",
        "jsonFile",
        "jsonlinesFile",
        "docxFile",
        "cheerioWebScraper",
      ]),
    );
    expect(loaderForFile("a.PDF")).toBe("pdfFile");
    expect(loaderForFile("notes.md")).toBe("textFile");
  });

  it("plainText merges metadata and omits keys", async () => {
    const docs = await loadDocuments("plainText", input({ text: "hello", metadata: '{"team":"a","drop":1}', omitMetadataKeys: "drop" }));
    expect(docs).toHaveLength(1);
    expect(docs[0].metadata).toEqual({ team: "a" });
  });

  it("textFile reads UTF-8 with source metadata; refuses binary", async () => {
    const docs = await loadDocuments("txtFile", input({}, [file("a.txt", "\uFEFFgrüße")]));
    expect(docs[0]).toMatchObject({ pageContent: "grüße", metadata: { source: "a.txt" } });
    await expect(
      loadDocuments("textFile", input({}, [{ name: "b.txt", mime: "text/plain", bytes: new Uint8Array([0, 1, 2, 0]) }])),
    ).rejects.toMatchObject({ status: 400 });
    await expect(loadDocuments("textFile", input({}, [file("c.txt", "")]))).rejects.toMatchObject({
      status: 400,
      message: "File c.txt is empty",
    });
    await expect(loadDocuments("textFile", input({}, [file("d.txt", "  \n ")]))).rejects.toMatchObject({ status: 400 });
  });

  it("csvFile: one document per row with line numbers, quoted fields, columnName", async () => {
    const csv = 'name,notes\nAda,"likes ""math"", and tea"\nBob,"two\nlines"\n';
    const docs = await loadDocuments("csvFile", input({}, [file("p.csv", csv, "text/csv")]));
    expect(docs.map((d) => d.pageContent)).toEqual(['name: Ada\nnotes: likes "math", and tea', "name: Bob\nnotes: two\nlines"]);
    expect(docs[1].metadata).toEqual({ source: "p.csv", line: 2 });
    const only = await loadDocuments("csvFile", input({ columnName: "notes" }, [file("p.csv", csv, "text/csv")]));
    expect(only[0].pageContent).toBe('likes "math", and tea');
    expect(await parseCsv("a,b\r\n1,2\r\n")).toEqual([
      ["a", "b"],
      ["1", "2"],
    ]);
  });

  it("jsonFile: string values, pointers, separateByObject; jsonlinesFile: pointer per line", async () => {
    const json = JSON.stringify([
      { title: "One", body: "first body" },
      { title: "Two", body: "second body", n: 2 },
    ]);
    expect((await loadDocuments("jsonFile", input({}, [file("x.json", json, "application/json")]))).map((d) => d.pageContent)).toEqual([
      "One",
      "first body",
      "Two",
      "second body",
    ]);
    expect(
      (await loadDocuments("jsonFile", input({ pointersName: "body" }, [file("x.json", json, "application/json")]))).map(
        (d) => d.pageContent,
      ),
    ).toEqual(["first body", "second body"]);
    const byObject = await loadDocuments("jsonFile", input({ separateByObject: true }, [file("x.json", json, "application/json")]));
    expect(JSON.parse(byObject[1].pageContent)).toEqual({ title: "Two", body: "second body", n: 2 });
    await expect(loadDocuments("jsonFile", input({}, [file("bad.json", "{nope", "application/json")]))).rejects.toMatchObject({
      status: 400,
    });
    const lines = '{"text":"alpha"}\n\n{"text":"beta","x":1}\n';
    const jl = await loadDocuments("jsonlinesFile", input({ pointerName: "text" }, [file("l.jsonl", lines)]));
    expect(jl.map((d) => [d.pageContent, d.metadata.line])).toEqual([
      ["alpha", 1],
      ["beta", 3],
    ]);
    await expect(loadDocuments("jsonlinesFile", input({}, [file("l.jsonl", '{"a":1}\nnot json')]))).rejects.toMatchObject({
      status: 400,
      message: "File l.jsonl line 2 is not valid JSON",
    });
  });

  it("pdfFile: per page (default) and per file; corrupt and image-only PDFs are 400", async () => {
    const pdf = makePdf([["First page about solar panels."], ["Second page about wind turbines.", "More wind."]]);
    const perPage = await loadDocuments("pdfFile", input({}, [{ name: "energy.pdf", mime: "application/pdf", bytes: pdf }]));
    expect(perPage).toHaveLength(2);
    expect(perPage[0].pageContent).toContain("solar panels");
    expect(perPage[1].metadata).toMatchObject({ source: "energy.pdf", loc: { pageNumber: 2 }, pdf: { totalPages: 2 } });
    const perFile = await loadDocuments(
      "pdfFile",
      input({ usage: "perFile" }, [{ name: "energy.pdf", mime: "application/pdf", bytes: pdf }]),
    );
    expect(perFile).toHaveLength(1);
    expect(perFile[0].pageContent).toMatch(/solar[\s\S]*wind turbines/);
    await expect(
      loadDocuments(
        "pdfFile",
        input({}, [{ name: "bad.pdf", mime: "application/pdf", bytes: enc.encode("%PDF-1.4 this is not really a pdf") }]),
      ),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      loadDocuments("pdfFile", input({}, [{ name: "blank.pdf", mime: "application/pdf", bytes: makePdf([[]]) }])),
    ).rejects.toMatchObject({ status: 400 });
  }, 30_000);

  it("docxFile: paragraphs from word/document.xml; a non-zip is 400", async () => {
    const docs = await loadDocuments(
      "docxFile",
      input({}, [{ name: "memo.docx", mime: DOCX_MIME, bytes: makeDocx(["Quarterly memo", "Revenue grew & costs fell <a lot>."]) }]),
    );
    expect(docs[0].pageContent).toBe("Quarterly memo\nRevenue grew & costs fell <a lot>.");
    expect(await docxXmlSafe()).toBe(true);
    await expect(
      loadDocuments("docxFile", input({}, [{ name: "x.docx", mime: DOCX_MIME, bytes: enc.encode("plain text") }])),
    ).rejects.toMatchObject({ status: 400 });
  });

  it("HTML to text skips scripts and styles, keeps blocks apart, honours a selector", async () => {
    const html =
      "<html><head><title>T &amp; C</title><style>p{}</style></head><body><nav>menu</nav><main><h1>Title</h1><p>One&nbsp;two</p><script>var x=1</script><p>Three</p></main></body></html>";
    const all = await htmlToText(html);
    expect(all.title).toBe("T & C");
    expect(all.text.split(/\n+/)).toEqual(["menu", "Title", "One two", "Three"]);
    expect((await htmlToText(html, "main")).text).not.toContain("menu");
  });
});

async function docxXmlSafe(): Promise<boolean> {
  return (await docxXmlToText("<w:body><w:p><w:r><w:t>a</w:t></w:r><w:r><w:tab/><w:t>b&#233;</w:t></w:r></w:p></w:body>")) === "a\tbé";
}
