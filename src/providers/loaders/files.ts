// Text-based file loaders: text, CSV, JSON, JSON Lines. Metadata as LangChain's loaders give it
// (source = file name; line for rows and records), so record-manager cleanup can group by source.
import { Document } from "@langchain/core/documents";
import { badRequest } from "../../errors";
import { jsonTooDeep, tooDeepMessage } from "../../lib/json-depth";
import { assertHasText, decodeText, extensionOf } from "./text-util";
import type { LoaderDefinition, LoaderFile } from "./types";

const BINARY_MIME = /^(image|audio|video|font)\/|^application\/(pdf|zip|x-zip|gzip|x-tar|octet-stream|msword|vnd\.)/;
const BINARY_EXT = new Set(["pdf", "docx", "doc", "xlsx", "xls", "pptx", "ppt", "zip", "gz", "tar", "png", "jpg", "jpeg", "gif", "webp", "mp3", "mp4", "wav", "exe", "bin"]);

/** A file a text loader can read: not a known binary kind by extension or MIME type. */
export const isTextLike = (f: { name: string; mime: string }): boolean => !BINARY_EXT.has(extensionOf(f.name)) && !BINARY_MIME.test(f.mime.toLowerCase());

const byExtOrMime = (exts: string[], mimes: string[]) => (f: { name: string; mime: string }) =>
  exts.includes(extensionOf(f.name)) || mimes.some((m) => f.mime.toLowerCase().startsWith(m)) || (isTextLike(f) && !extensionOf(f.name));

function needFiles(files: LoaderFile[], loader: string): void {
  if (!files.length) throw badRequest(`${loader} needs a file: upload one in \`files\` or give it in the loader config`);
}

/** RFC 4180 CSV: quoted fields, doubled quotes, CRLF or LF. */
export function parseCsv(text: string, separator = ","): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"' && field === "") quoted = true;
    else if (c === separator) {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += c;
  }
  if (quoted) throw badRequest("CSV has an unterminated quoted field");
  if (field !== "" || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.some((v) => v.trim() !== ""));
}

/** Every string value in a JSON value, depth first (what LangChain's JSONLoader indexes). */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === "object") for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** Values of the named keys wherever they appear in a JSON value. */
function valuesOf(value: unknown, keys: Set<string>, out: unknown[] = []): unknown[] {
  if (Array.isArray(value)) for (const v of value) valuesOf(v, keys, out);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (keys.has(k)) out.push(v);
      else valuesOf(v, keys, out);
    }
  }
  return out;
}

const listOf = (v: unknown): string[] =>
  typeof v === "string" ? v.split(",").map((s) => s.trim().replace(/^\//, "")).filter(Boolean) : Array.isArray(v) ? v.map(String) : [];

function parseJson(file: LoaderFile): unknown {
  const text = decodeText(file);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw badRequest(`File ${file.name} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (jsonTooDeep(value)) throw badRequest(tooDeepMessage(`File ${file.name}`)); // the walks below recurse
  return value;
}

export const fileLoaders: LoaderDefinition[] = [
  {
    name: "textFile",
    aliases: ["txtFile"],
    label: "Text File",
    fileField: "txtFile",
    accepts: isTextLike,
    async load({ files }) {
      needFiles(files, "textFile");
      const docs = files.map((f) => new Document({ pageContent: decodeText(f), metadata: { source: f.name } }));
      assertHasText(docs.map((d) => d.pageContent), files.map((f) => f.name).join(", "));
      return docs.filter((d) => d.pageContent.trim());
    },
  },
  {
    name: "csvFile",
    label: "Csv File",
    fileField: "csvFile",
    accepts: byExtOrMime(["csv", "tsv"], ["text/csv", "text/tab-separated-values", "text/plain", "application/csv", "application/vnd.ms-excel"]),
    async load({ files, config }) {
      needFiles(files, "csvFile");
      const column = typeof config.columnName === "string" && config.columnName.trim() ? config.columnName.trim() : undefined;
      const docs: Document[] = [];
      for (const f of files) {
        const rows = parseCsv(decodeText(f), extensionOf(f.name) === "tsv" ? "\t" : typeof config.separator === "string" && config.separator ? config.separator : ",");
        if (rows.length < 2) throw badRequest(`CSV file ${f.name} has no data rows under its header`);
        const [header, ...data] = rows;
        if (column && !header.includes(column)) throw badRequest(`CSV file ${f.name} has no column "${column}" (columns: ${header.join(", ")})`);
        data.forEach((r, i) => {
          const pageContent = column
            ? (r[header.indexOf(column)] ?? "")
            : header.map((h, j) => `${h.trim()}: ${(r[j] ?? "").trim()}`).join("\n");
          if (pageContent.trim()) docs.push(new Document({ pageContent, metadata: { source: f.name, line: i + 1 } }));
        });
      }
      assertHasText(docs.map((d) => d.pageContent), files.map((f) => f.name).join(", "));
      return docs;
    },
  },
  {
    name: "jsonFile",
    label: "Json File",
    fileField: "jsonFile",
    accepts: byExtOrMime(["json"], ["application/json", "text/json", "text/plain"]),
    async load({ files, config }) {
      needFiles(files, "jsonFile");
      const pointers = new Set(listOf(config.pointersName ?? config.pointers));
      const byObject = config.separateByObject === true || config.separateByObject === "true";
      const docs: Document[] = [];
      for (const f of files) {
        const json = parseJson(f);
        let texts: string[];
        if (byObject && Array.isArray(json)) {
          // One document per element of a top-level array, its selected keys (or all) as JSON.
          texts = json.map((item) =>
            typeof item === "string" ? item : JSON.stringify(pointers.size && item && typeof item === "object" ? Object.fromEntries(Object.entries(item).filter(([k]) => pointers.has(k))) : item),
          );
        } else {
          texts = pointers.size ? valuesOf(json, pointers).flatMap((v) => strings(v)) : strings(json);
        }
        texts.forEach((t, i) => {
          if (t.trim()) docs.push(new Document({ pageContent: t, metadata: { source: f.name, line: i + 1 } }));
        });
      }
      assertHasText(docs.map((d) => d.pageContent), files.map((f) => f.name).join(", "));
      return docs;
    },
  },
  {
    name: "jsonlinesFile",
    label: "Json Lines File",
    fileField: "jsonlinesFile",
    accepts: byExtOrMime(["jsonl", "ndjson"], ["application/jsonl", "application/x-ndjson", "application/json", "text/plain"]),
    async load({ files, config }) {
      needFiles(files, "jsonlinesFile");
      const pointer = listOf(config.pointerName ?? config.pointer)[0];
      const docs: Document[] = [];
      for (const f of files) {
        decodeText(f)
          .split(/\r?\n/)
          .forEach((line, i) => {
            if (!line.trim()) return;
            let value: unknown;
            try {
              value = JSON.parse(line);
            } catch {
              throw badRequest(`File ${f.name} line ${i + 1} is not valid JSON`);
            }
            if (jsonTooDeep(value)) throw badRequest(tooDeepMessage(`File ${f.name} line ${i + 1}`));
            const picked = pointer ? (value && typeof value === "object" ? (value as Record<string, unknown>)[pointer] : undefined) : value;
            if (picked === undefined || picked === null) return;
            const pageContent = typeof picked === "string" ? picked : JSON.stringify(picked);
            if (pageContent.trim()) docs.push(new Document({ pageContent, metadata: { source: f.name, line: i + 1 } }));
          });
      }
      assertHasText(docs.map((d) => d.pageContent), files.map((f) => f.name).join(", ") + (pointer ? ` (pointer "${pointer}")` : ""));
      return docs;
    },
  },
];
