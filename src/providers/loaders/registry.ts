// Document loaders by Flowise node name. Each reads its files or URL into Documents; the shared
// step here merges the request's metadata and drops omitted keys, as Flowise's loaders do.
import { Document } from "@langchain/core/documents";
import { fail } from "../../errors";
import { megabytes, overLimit } from "../../lib/limits";
import { docxLoader } from "./docx";
import { epubLoader } from "./epub";
import { fileLoader } from "./file-loader";
import { apifyLoader } from "./hosted/apify";
import { figmaLoader } from "./hosted/figma";
import { gitbookLoader } from "./gitbook";
import { oxylabsLoader } from "./hosted/oxylabs";
import { unstructuredLoader } from "./hosted/unstructured";
import { excelLoader } from "./office/excel";
import { powerpointLoader, wordLoader } from "./office/powerpoint";
import { fileLoaders } from "./files";
import { githubLoader } from "./github";
import { googleDriveLoader } from "./google/drive";
import { googleSheetsLoader } from "./google/sheets";
import { apiLoader } from "./hosted/api-loader";
import { airtableLoader } from "./hosted/airtable";
import { confluenceLoader } from "./hosted/confluence";
import { crawlerLoaders } from "./hosted/crawlers";
import { jiraLoader } from "./hosted/jira";
import { notionLoaders } from "./notion";
import { searchLoaders } from "./hosted/search";
import { pdfLoader } from "./pdf";
import { s3Loaders } from "./s3";
import { extensionOf } from "./text-util";
import type { LoaderDefinition, LoaderInput } from "./types";
import { webLoader } from "./web";
import { browserRenderingLoaders } from "./browser-rendering";

const plainTextLoader: LoaderDefinition = {
  name: "plainText",
  label: "Plain Text",
  async load({ config }) {
    const text = typeof config.text === "string" ? config.text : "";
    if (!text.trim()) throw fail("INVALID_INPUT", "plainText needs a non-empty `text`");
    return [new Document({ pageContent: text, metadata: {} })];
  },
};

const definitions: LoaderDefinition[] = [
  plainTextLoader,
  ...fileLoaders,
  pdfLoader,
  docxLoader,
  webLoader,
  ...browserRenderingLoaders,
  githubLoader,
  apiLoader,
  ...searchLoaders,
  ...crawlerLoaders,
  ...notionLoaders,
  jiraLoader,
  airtableLoader,
  confluenceLoader,
  googleDriveLoader,
  googleSheetsLoader,
  fileLoader,
  wordLoader,
  excelLoader,
  powerpointLoader,
  epubLoader,
  ...s3Loaders,
  gitbookLoader,
  figmaLoader,
  unstructuredLoader,
  oxylabsLoader,
  apifyLoader,
];

const byName = new Map<string, LoaderDefinition>();
for (const def of definitions) for (const n of [def.name, ...(def.aliases ?? [])]) byName.set(n, def);

export const supportedLoaders = (): string[] => [...byName.keys()].sort();

export function loaderDefinition(name: string): LoaderDefinition {
  const def = byName.get(name);
  if (!def) throw fail("INVALID_INPUT", `Unknown loader "${name}". Supported: ${supportedLoaders().join(", ")}`);
  return def;
}

/** Flowise's choice of file input by extension (mapExtToInputField), then our loader for it. */
const EXT_LOADER: Record<string, string> = {
  pdf: "pdfFile",
  json: "jsonFile",
  csv: "csvFile",
  jsonl: "jsonlinesFile",
  docx: "docxFile",
  // Flowise sends spreadsheets to csvFile (which cannot read them); here they go to the Office loaders.
  ...Object.fromEntries(["xlsx", "xlsm", "xls", "xlsb"].map((x) => [x, "microsoftExcel"])),
  pptx: "microsoftPowerpoint",
  ppt: "microsoftPowerpoint",
  epub: "epubFile",
};
export const loaderForFile = (name: string): string => EXT_LOADER[extensionOf(name)] ?? "textFile";

function metadataObject(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null || value === "") return {};
  let v = value;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch {
      throw fail("INVALID_INPUT", "Loader metadata must be a JSON object");
    }
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw fail("INVALID_INPUT", "Loader metadata must be a JSON object");
  return v as Record<string, unknown>;
}

/**
 * Loads with the named loader, then applies `metadata` and `omitMetadataKeys` from its config.
 * What all loaders read together is held to the text limit (MAX_TEXT_MB) and, as each document
 * becomes at least one chunk, the chunk limit (MAX_CHUNKS_PER_UPSERT).
 */
export async function loadDocuments(name: string, input: LoaderInput): Promise<Document[]> {
  const def = loaderDefinition(name);
  const shape = metadataShaper(input.config);
  const docs = await def.load(input);
  const { limits } = input;
  const chars = docs.reduce((n, d) => n + d.pageContent.length, 0);
  if (chars > megabytes(limits.textMb)) throw overLimit(limits, "textMb", `What loader ${name} read`, Math.ceil(chars / 1024 / 1024));
  if (docs.length > limits.chunks) throw overLimit(limits, "chunks", `What loader ${name} read`, docs.length);
  return docs.map((d) => new Document({ pageContent: d.pageContent, metadata: shape(d.metadata) }));
}

/**
 * What a loader's `metadata` and `omitMetadataKeys` settings make of a document's metadata (400
 * for metadata that is not a JSON object).
 */
export function metadataShaper(config: Record<string, unknown>): (metadata: Record<string, unknown>) => Record<string, unknown> {
  // spiderDocumentLoaders names its additional metadata `additional_metadata`.
  const extra = metadataObject(config.metadata || config.additional_metadata);
  const omit =
    typeof config.omitMetadataKeys === "string"
      ? config.omitMetadataKeys
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
  return (original) => {
    if (omit.includes("*")) return { ...extra };
    const metadata: Record<string, unknown> = { ...original, ...extra };
    for (const k of omit) delete metadata[k];
    return metadata;
  };
}
