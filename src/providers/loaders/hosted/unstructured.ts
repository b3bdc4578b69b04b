// unstructuredFileLoader (credential unstructuredApi: unstructuredAPIKey, optional): each uploaded
// file sent to the Unstructured API (`unstructuredAPIUrl`, a URL under the outbound request rule;
// default https://api.unstructuredapp.io/general/v0/general) as multipart `files` with Flowise's
// form fields and the key as `unstructured-api-key`; the elements with text become documents as
// Flowise's UnstructuredLoader makes them: pageContent the text, metadata the element's metadata
// with `category` its type. It reads any upload (a chatflow upsert's files of every kind).
import { Document } from "@langchain/core/documents";
import { fail } from "../../../errors";
import { overLimit } from "../../../lib/limits";
import { credentialOf } from "../../config";
import { needFiles } from "../text-util";
import type { LoaderDefinition, LoaderFile, LoaderInput } from "../types";
import { hostedJson } from "./call";

const DEFAULT_URL = "https://api.unstructuredapp.io/general/v0/general";
const str = (v: unknown) => (typeof v === "string" ? v.trim() : typeof v === "number" ? String(v) : "");
const isTrue = (v: unknown) => v === true || v === "true";
const isSet = (v: unknown) => v === true || v === false || v === "true" || v === "false";

/** A multiOptions value: a JSON array string (Flowise's), an array, or a comma list. */
function list(value: unknown, name: string): string[] {
  if (Array.isArray(value)) return value.map(String);
  const s = str(value);
  if (!s) return [];
  if (s.startsWith("[")) {
    try {
      const parsed = JSON.parse(s);
      if (Array.isArray(parsed)) return parsed.map(String);
    } catch {
      // reported below
    }
    throw fail("INVALID_INPUT", `unstructuredFileLoader ${name} must be a JSON array of strings`);
  }
  return s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
}

function form(file: LoaderFile, config: Record<string, unknown>): FormData {
  const f = new FormData();
  f.append("files", new Blob([file.bytes], { type: file.mime || "application/octet-stream" }), file.name);
  f.append("strategy", str(config.strategy) || "hi_res");
  for (const lang of list(config.ocrLanguages, "ocrLanguages")) f.append("ocr_languages", lang);
  const fields: Array<[string, string | undefined]> = [
    ["encoding", str(config.encoding) || undefined],
    ["coordinates", isTrue(config.coordinates) ? "true" : undefined],
    ["xml_keep_tags", isTrue(config.xmlKeepTags) ? "true" : undefined],
    ["skip_infer_table_types", JSON.stringify(list(config.skipInferTableTypes, "skipInferTableTypes"))],
    ["hi_res_model_name", str(config.hiResModelName) || undefined],
    ["include_page_breaks", isTrue(config.includePageBreaks) ? "true" : undefined],
    // Flowise's "None" option means no chunking; sent as a name, Unstructured refuses it (422/400).
    ["chunking_strategy", /^none$/i.test(str(config.chunkingStrategy)) ? undefined : str(config.chunkingStrategy) || undefined],
    ["multipage_sections", isSet(config.multiPageSections) ? String(isTrue(config.multiPageSections)) : undefined],
  ];
  for (const [key, input] of [
    ["combine_under_n_chars", config.combineUnderNChars],
    ["new_after_n_chars", config.newAfterNChars],
    ["max_characters", config.maxCharacters],
  ] as const) {
    const n = Number.parseInt(str(input), 10);
    fields.push([key, Number.isFinite(n) ? String(n) : undefined]);
  }
  for (const [key, value] of fields) if (value !== undefined) f.append(key, value);
  return f;
}

async function loadUnstructured(input: LoaderInput): Promise<Document[]> {
  const { config, files } = input;
  needFiles(files, "unstructuredFileLoader");
  const url = str(config.unstructuredAPIUrl) || DEFAULT_URL;
  const cred = (input.getCredential ? await credentialOf(config, { getCredential: input.getCredential }).catch(() => ({})) : {}) as Record<
    string,
    unknown
  >;
  const key = str(cred.unstructuredAPIKey);
  const docs: Document[] = [];
  for (const file of files) {
    const elements = await hostedJson(input, {
      service: "Unstructured",
      url,
      init: { method: "POST", headers: { "unstructured-api-key": key }, body: form(file, config) },
      secrets: key ? [key] : [],
    });
    if (!Array.isArray(elements)) throw fail("UPSTREAM_FAILED", "Unstructured answered something that is not a list of elements");
    for (const el of elements) {
      const e = (el ?? {}) as { text?: unknown; type?: unknown; metadata?: unknown };
      if (typeof e.text !== "string") continue;
      const metadata = e.metadata && typeof e.metadata === "object" ? (e.metadata as Record<string, unknown>) : {};
      docs.push(new Document({ pageContent: e.text, metadata: { ...metadata, category: e.type } }));
      if (docs.length > input.limits.chunks) throw overLimit(input.limits, "chunks", `What Unstructured made of ${file.name}`);
    }
  }
  return docs;
}

export const unstructuredLoader: LoaderDefinition = {
  name: "unstructuredFileLoader",
  label: "Unstructured File Loader",
  fileField: "fileObject",
  anyUpload: true,
  load: loadUnstructured,
};
