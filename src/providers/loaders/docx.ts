// DOCX: a zip whose word/document.xml holds the text in <w:t> runs inside <w:p> paragraphs.
// fflate unzips it; the XML is read with a few patterns (no DOM in workers, none needed).
import { Document } from "@langchain/core/documents";
import { unzipSync } from "fflate";
import { badRequest } from "../../errors";
import { assertHasText, assertNotEmpty, extensionOf } from "./text-util";
import type { LoaderDefinition } from "./types";

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

export const decodeXmlEntities = (s: string): string =>
  s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === "#") {
      const code = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) ? String.fromCodePoint(code) : m;
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });

/** Paragraph text of a WordprocessingML body: runs joined, tabs and breaks kept. */
export function docxXmlToText(xml: string): string {
  const paragraphs: string[] = [];
  for (const p of xml.match(/<w:p[\s>][\s\S]*?<\/w:p>|<w:p\/>/g) ?? []) {
    let text = "";
    for (const m of p.matchAll(/<w:t(?:\s[^>]*)?>([\s\S]*?)<\/w:t>|<w:tab\/>|<w:br\/>|<w:cr\/>/g)) {
      if (m[1] !== undefined) text += decodeXmlEntities(m[1]);
      else text += m[0] === "<w:tab/>" ? "\t" : "\n";
    }
    paragraphs.push(text);
  }
  return paragraphs.join("\n").replace(/\n{3,}/g, "\n\n").trim();
}

export const docxLoader: LoaderDefinition = {
  name: "docxFile",
  label: "Docx File",
  fileField: "docxFile",
  accepts: (f) => extensionOf(f.name) === "docx" || f.mime.toLowerCase() === "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  async load({ files }) {
    if (!files.length) throw badRequest("docxFile needs a file: upload one in `files` or give it in the loader config");
    const docs: Document[] = [];
    for (const f of files) {
      assertNotEmpty(f);
      let xml: Uint8Array | undefined;
      try {
        xml = unzipSync(f.bytes, { filter: (entry) => entry.name === "word/document.xml" })["word/document.xml"];
      } catch (err) {
        throw badRequest(`File ${f.name} is not a readable DOCX (zip): ${err instanceof Error ? err.message : String(err)}`);
      }
      if (!xml) throw badRequest(`File ${f.name} is not a DOCX: word/document.xml is missing`);
      const text = docxXmlToText(new TextDecoder().decode(xml));
      assertHasText([text], `DOCX ${f.name}`);
      docs.push(new Document({ pageContent: text, metadata: { source: f.name } }));
    }
    return docs;
  },
};
