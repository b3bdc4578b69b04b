// microsoftPowerpoint and microsoftWord. PowerPoint: a PPTX (a zip of PresentationML) read slide by
// slide in the presentation's order (ppt/presentation.xml's slide list through its relationships),
// each slide's <a:t> runs joined, a paragraph a line: one document per slide with text, metadata
// {source, slideNumber, documentType: "powerpoint"} as Flowise's PowerpointLoader gives them — from
// the slides themselves rather than its guess at slide breaks in officeparser's text. Word: the
// DOCX reader (docx.ts), one document per file with {source, documentType: "word"}.
import { Document } from "@langchain/core/documents";
import { fail } from "../../../errors";
import type { WorkLimits } from "../../../lib/limits";
import { overLimit } from "../../../lib/limits";
import { Pacer } from "../../../lib/pace";
import { docxLoader } from "../docx";
import { assertNotEmpty, extensionOf, needFiles } from "../text-util";
import type { LoaderDefinition, LoaderFile } from "../types";
import { Archive, attr, elements, relationships, texts } from "./archive";

const PPTX_MIME = "application/vnd.openxmlformats-officedocument.presentationml";
const DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml";

/** The text of one slide: its paragraphs' runs, a paragraph a line. */
export function slideText(xml: string): string {
  const lines: string[] = [];
  for (const p of elements(xml, "a:p")) lines.push(texts(p.inner, "a:t"));
  return lines
    .map((l) => l.trim())
    .filter(Boolean)
    .join("\n");
}

/** Slide parts in presentation order (falling back to slideN.xml by number). */
async function slideParts(zip: Archive): Promise<string[]> {
  const presentation = (await zip.text("ppt/presentation.xml")) ?? "";
  const rels = relationships(await zip.text("ppt/_rels/presentation.xml.rels"), "ppt");
  const ordered = [...elements(presentation, "p:sldId")].map((s) => rels.get(attr(s.attrs, "r:id") ?? "")).filter((p) => !!p) as string[];
  if (ordered.length) return ordered;
  const numbered = (await zip.entries()).map((n) => /^ppt\/slides\/slide(\d+)\.xml$/.exec(n)).filter((m) => !!m) as RegExpExecArray[];
  return numbered.sort((a, b) => Number(a[1]) - Number(b[1])).map((m) => m[0]);
}

export async function powerpointDocuments(file: LoaderFile, limits: WorkLimits): Promise<Document[]> {
  assertNotEmpty(file);
  if (extensionOf(file.name) === "ppt" && file.bytes[0] !== 0x50)
    throw fail("INVALID_INPUT", `File ${file.name} is a binary PowerPoint file (.ppt): save it as .pptx to load it`);
  const zip = new Archive(file, limits, "PPTX");
  const parts = await slideParts(zip);
  if (!parts.length) throw fail("INVALID_INPUT", `File ${file.name} is not a PPTX: it has no slides`);
  if (parts.length > limits.chunks) throw overLimit(limits, "chunks", `PPTX ${file.name}`, parts.length);
  const docs: Document[] = [];
  const pacer = new Pacer(8);
  for (const [i, part] of parts.entries()) {
    const xml = await zip.text(part);
    const text = xml ? slideText(xml) : "";
    if (text)
      docs.push(new Document({ pageContent: text, metadata: { slideNumber: i + 1, documentType: "powerpoint", source: file.name } }));
    const wait = pacer.tick();
    if (wait) await wait;
  }
  return docs;
}

export const powerpointLoader: LoaderDefinition = {
  name: "microsoftPowerpoint",
  label: "Microsoft PowerPoint",
  fileField: "powerpointFile",
  accepts: (f) => ["pptx", "ppt"].includes(extensionOf(f.name)) || f.mime.toLowerCase().startsWith(PPTX_MIME),
  async load({ files, limits }) {
    needFiles(files, "microsoftPowerpoint");
    const docs: Document[] = [];
    for (const f of files) docs.push(...(await powerpointDocuments(f, limits)));
    if (!docs.length) throw fail("INVALID_INPUT", `No text found in ${files.map((f) => f.name).join(", ")}`);
    return docs;
  },
};

export const wordLoader: LoaderDefinition = {
  name: "microsoftWord",
  label: "Microsoft Word",
  fileField: "docxFile",
  accepts: (f) => ["docx", "doc"].includes(extensionOf(f.name)) || f.mime.toLowerCase().startsWith(DOCX_MIME),
  async load(input) {
    needFiles(input.files, "microsoftWord");
    for (const f of input.files)
      if (extensionOf(f.name) === "doc" && f.bytes[0] !== 0x50)
        throw fail("INVALID_INPUT", `File ${f.name} is a binary Word file (.doc): save it as .docx to load it`);
    const docs = await docxLoader.load(input);
    return docs.map((d) => new Document({ pageContent: d.pageContent, metadata: { documentType: "word", ...d.metadata } }));
  },
};
