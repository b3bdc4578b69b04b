// fileLoader (Flowise's "File Loader"): any uploaded file, each read by the loader for its kind —
// by extension, or by MIME type for a data URI without a file name (Flowise's MultiFileLoader):
// json, jsonl (`pointerName`), csv, pdf (`usage` / `pdfUsage`), docx, xlsx/xlsm (the Excel loader),
// pptx, epub (not in Flowise's list, where it would be read as text), anything else as text (a
// binary file is a 400). Each kind's own limits apply; the registry checks the total.
import type { Document } from "@langchain/core/documents";
import { fail } from "../../errors";
import { docxLoader } from "./docx";
import { epubLoader } from "./epub";
import { fileLoaders } from "./files";
import { excelLoader } from "./office/excel";
import { powerpointLoader } from "./office/powerpoint";
import { pdfLoader } from "./pdf";
import { extensionOf, needFiles } from "./text-util";
import type { LoaderDefinition, LoaderFile } from "./types";

const byName = new Map([...fileLoaders, pdfLoader, docxLoader, excelLoader, powerpointLoader, epubLoader].map((d) => [d.name, d]));

/** The loader for each extension Flowise's File Loader names (and epub); others are text. */
const EXT: Record<string, string> = {
  json: "jsonFile",
  jsonl: "jsonlinesFile",
  csv: "csvFile",
  pdf: "pdfFile",
  docx: "docxFile",
  doc: "docxFile",
  xlsx: "microsoftExcel",
  xlsm: "microsoftExcel",
  xls: "microsoftExcel",
  xlsb: "microsoftExcel",
  pptx: "microsoftPowerpoint",
  ppt: "microsoftPowerpoint",
  epub: "epubFile",
};

/** Flowise's mapMimeTypeToExt, for files without an extension (data URIs without a file name). */
const MIME_EXT: Record<string, string> = {
  "application/json": "json",
  "application/jsonl": "jsonl",
  "application/json-lines": "jsonl",
  "text/csv": "csv",
  "application/pdf": "pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/msword": "doc",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
  "application/vnd.ms-excel": "xls",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
  "application/vnd.ms-powerpoint": "ppt",
  "application/epub+zip": "epub",
};

/** The loader name fileLoader reads a file with. */
export function fileLoaderFor(file: { name: string; mime: string }): string {
  const ext = extensionOf(file.name) || MIME_EXT[file.mime.toLowerCase().split(";")[0].trim()] || "";
  return EXT[ext] ?? "textFile";
}

export const fileLoader: LoaderDefinition = {
  name: "fileLoader",
  label: "File Loader",
  fileField: "file",
  anyUpload: true,
  async load(input) {
    needFiles(input.files, "fileLoader");
    // `usage` is the PDF's (an EPUB is read a document per chapter, as its own loader does by default).
    const usage = input.config.pdfUsage || input.config.usage;
    const docs: Document[] = [];
    for (const file of input.files) {
      const def = byName.get(fileLoaderFor(file));
      if (!def) throw fail("INVALID_INPUT", `fileLoader cannot read ${file.name}`);
      const config = { ...input.config, usage: def.name === "pdfFile" ? usage : undefined };
      const files: LoaderFile[] = [file];
      docs.push(...(await def.load({ ...input, config, files })));
    }
    return docs;
  },
};
