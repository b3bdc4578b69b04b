// Small real documents made in the tests: a PDF written by hand (objects, xref, trailer) and a
// DOCX zipped with fflate.
import { strToU8, zipSync } from "fflate";

const esc = (s: string) => s.replace(/\\/g, "\\\\").replace(/\(/g, "\\(").replace(/\)/g, "\\)");

/**
 * A valid PDF with one page per entry; each page's lines drawn in Helvetica. The pages hang from
 * the root of the page tree (flat, as simple writers make it), or with `fanout` from intermediate
 * nodes of that many pages each (as office suites and TeX make it).
 */
export function makePdf(pages: string[][], options: { fanout?: number } = {}): Uint8Array {
  const objects: string[] = [];
  const fanout = options.fanout ?? pages.length;
  const nodes = Math.ceil(pages.length / Math.max(1, fanout));
  const flat = nodes <= 1;
  const first = flat ? 4 : 4 + nodes; // the first page's object
  const pageId = (i: number) => first + i * 2;
  const nodeId = (n: number) => 4 + n;
  const parentOf = (i: number) => (flat ? 2 : nodeId(Math.floor(i / fanout)));
  const refs = (ids: number[]) => ids.map((id) => `${id} 0 R`).join(" ");
  objects[1] = "<< /Type /Catalog /Pages 2 0 R >>";
  const top = flat ? pages.map((_, i) => pageId(i)) : Array.from({ length: nodes }, (_, n) => nodeId(n));
  objects[2] = `<< /Type /Pages /Kids [${refs(top)}] /Count ${pages.length} >>`;
  objects[3] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";
  for (let n = 0; !flat && n < nodes; n++) {
    const kids = pages.slice(n * fanout, (n + 1) * fanout).map((_, k) => pageId(n * fanout + k));
    objects[nodeId(n)] = `<< /Type /Pages /Parent 2 0 R /Kids [${refs(kids)}] /Count ${kids.length} >>`;
  }
  pages.forEach((lines, i) => {
    const stream = `BT /F1 12 Tf 14 TL 72 720 Td ${lines.map((l) => `(${esc(l)}) Tj T*`).join(" ")} ET`;
    const resources = "/MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >>";
    objects[pageId(i)] = `<< /Type /Page /Parent ${parentOf(i)} 0 R ${resources} /Contents ${pageId(i) + 1} 0 R >>`;
    objects[pageId(i) + 1] = `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
  });
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = out.length;
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = out.length;
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return strToU8(out);
}

const xmlEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A minimal DOCX (WordprocessingML) with one paragraph per entry. */
export function makeDocx(paragraphs: string[]): Uint8Array {
  const body = paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${xmlEscape(p)}</w:t></w:r></w:p>`).join("");
  return zipSync({
    "[Content_Types].xml": strToU8(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
    "_rels/.rels": strToU8(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    ),
    "word/document.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
    ),
  });
}

export const DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
