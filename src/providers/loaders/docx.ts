// DOCX: a zip whose word/document.xml holds the text in <w:t> runs inside <w:p> paragraphs. The
// part is read within limits (zip.ts: entries, unzipped size); the XML is scanned with indexOf
// (no DOM in workers, none needed; no backtracking patterns over attacker-sized input), yielding
// as it goes, inside paragraphs too (one paragraph may hold most of the document).
import { Document } from "@langchain/core/documents";
import { decodeXML } from "entities/decode";
import { ApiError, fail } from "../../errors";
import { megabytes, overLimit } from "../../lib/limits";
import { Pacer } from "../../lib/pace";
import { assertHasText, assertNotEmpty, extensionOf } from "./text-util";
import type { LoaderDefinition } from "./types";
import { readZipText } from "./zip";
import { errorMessage } from "../../lib/error-message";

const BREAKS = Object.entries({ "<w:tab/>": "\t", "<w:br/>": "\n", "<w:cr/>": "\n" });

/**
 * The text of the paragraph xml[from, to): its <w:t> runs joined, tabs and breaks kept. Paced run
 * by run: one paragraph may be most of the document.
 */
async function paragraphText(xml: string, from: number, to: number, pacer: Pacer): Promise<string> {
  const parts: string[] = [];
  for (let at = xml.indexOf("<w:", from); at >= 0 && at < to; at = xml.indexOf("<w:", at + 3)) {
    const next = xml[at + 4];
    if (xml[at + 3] === "t" && (next === ">" || next === " " || next === "\t" || next === "\n" || next === "\r")) {
      const open = xml.indexOf(">", at);
      const close = open < 0 || open >= to ? -1 : xml.indexOf("</w:t>", open);
      if (close < 0 || close > to) break;
      parts.push(decodeXML(xml.slice(open + 1, close)));
      at = close;
    } else {
      for (const [tag, value] of BREAKS) {
        if (xml.startsWith(tag, at)) {
          parts.push(value);
          break;
        }
      }
    }
    const wait = pacer.tick();
    if (wait) await wait;
  }
  return parts.join("");
}

/** Start of the next <w:p> or <w:p ...> or <w:p/> tag at or after `from` (not <w:pPr> and the like). */
function nextParagraph(xml: string, from: number): number {
  for (let at = xml.indexOf("<w:p", from); at >= 0; at = xml.indexOf("<w:p", at + 4)) {
    const c = xml[at + 4];
    if (c === ">" || c === "/" || c === " " || c === "\t" || c === "\n" || c === "\r") return at;
  }
  return -1;
}

/** Paragraph text of a WordprocessingML body: runs joined, tabs and breaks kept. */
export async function docxXmlToText(xml: string): Promise<string> {
  const paragraphs: string[] = [];
  const pacer = new Pacer();
  for (let at = nextParagraph(xml, 0); at >= 0; ) {
    if (xml.startsWith("<w:p/>", at)) {
      paragraphs.push("");
      at = nextParagraph(xml, at + 6);
    } else {
      const end = xml.indexOf("</w:p>", at);
      if (end < 0) break;
      paragraphs.push(await paragraphText(xml, at, end, pacer));
      at = nextParagraph(xml, end + 6);
    }
    const wait = pacer.tick();
    if (wait) await wait;
  }
  return paragraphs
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

export const docxLoader: LoaderDefinition = {
  name: "docxFile",
  label: "Docx File",
  fileField: "docxFile",
  accepts: (f) =>
    extensionOf(f.name) === "docx" || f.mime.toLowerCase() === "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  async load({ files, limits }) {
    if (!files.length) throw fail("INVALID_INPUT", "docxFile needs a file: upload one in `files` or give it in the loader config");
    const docs: Document[] = [];
    for (const f of files) {
      assertNotEmpty(f);
      let xml: string | undefined;
      try {
        xml = await readZipText(f.bytes, "word/document.xml", {
          maxEntries: limits.docxEntries,
          maxBytes: megabytes(limits.docxUnzippedMb),
          tooManyEntries: (count) => overLimit(limits, "docxEntries", `DOCX ${f.name}`, count),
          tooLarge: (declared) =>
            overLimit(limits, "docxUnzippedMb", `DOCX ${f.name}`, declared === undefined ? undefined : Math.ceil(declared / 1024 / 1024)),
        });
      } catch (err) {
        if (err instanceof ApiError && err.status !== 400) throw err;
        throw fail("INVALID_INPUT", `File ${f.name} is not a readable DOCX (zip): ${errorMessage(err)}`);
      }
      if (xml === undefined) throw fail("INVALID_INPUT", `File ${f.name} is not a DOCX: word/document.xml is missing`);
      const text = await docxXmlToText(xml);
      assertHasText([text], `DOCX ${f.name}`);
      docs.push(new Document({ pageContent: text, metadata: { source: f.name } }));
    }
    return docs;
  },
};
