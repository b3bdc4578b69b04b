// JSON and JSON Lines files. jsonFile: every string value (LangChain's JSONLoader), or those under
// `pointersName` keys, or one document per element of a top-level array (`separateByObject`);
// jsonlinesFile: one document per line, or its `pointerName` value. Nesting is checked right after
// parsing (src/lib/json-depth.ts), so the walks below cannot overflow the stack; the document
// count is checked as it grows.
import { Document } from "@langchain/core/documents";
import { badRequest } from "../../errors";
import { jsonTooDeep, tooDeepMessage } from "../../lib/json-depth";
import { Pacer } from "../../lib/pace";
import { assertDocumentCount, assertHasText, byExtOrMime, decodeTextWithin, needFiles } from "./text-util";
import type { LoaderDefinition, LoaderFile } from "./types";
import type { WorkLimits } from "../../lib/limits";
import { errorMessage } from "../../lib/error-message";

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
  typeof v === "string"
    ? v
        .split(",")
        .map((s) => s.trim().replace(/^\//, ""))
        .filter(Boolean)
    : Array.isArray(v)
      ? v.map(String)
      : [];

async function parseJsonFile(file: LoaderFile, limits: WorkLimits): Promise<unknown> {
  const text = await decodeTextWithin(file, limits);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw badRequest(`File ${file.name} is not valid JSON: ${errorMessage(err)}`);
  }
  if (jsonTooDeep(value)) throw badRequest(tooDeepMessage(`File ${file.name}`)); // the walks below recurse
  return value;
}

/** A JSON Lines pointer setting (`pointerName`): the key whose value each line's document holds. */
export const jsonLinesPointer = (config: Record<string, unknown>): string | undefined => listOf(config.pointerName ?? config.pointer)[0];

/**
 * The document of one JSON Lines line (number `lineNo`): the line's value, or its `pointer` key's;
 * undefined for a blank line or one without text. 400 for a line that is not JSON.
 */
export function jsonLineDocument(line: string, lineNo: number, fileName: string, pointer: string | undefined): Document | undefined {
  if (!line.trim()) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw badRequest(`File ${fileName} line ${lineNo} is not valid JSON`);
  }
  if (jsonTooDeep(value)) throw badRequest(tooDeepMessage(`File ${fileName} line ${lineNo}`));
  const picked = pointer ? (value && typeof value === "object" ? (value as Record<string, unknown>)[pointer] : undefined) : value;
  if (picked === undefined || picked === null) return undefined;
  const pageContent = typeof picked === "string" ? picked : JSON.stringify(picked);
  return pageContent.trim() ? new Document({ pageContent, metadata: { source: fileName, line: lineNo } }) : undefined;
}

export const jsonLoaders: LoaderDefinition[] = [
  {
    name: "jsonFile",
    label: "Json File",
    fileField: "jsonFile",
    accepts: byExtOrMime(["json"], ["application/json", "text/json", "text/plain"]),
    async load({ files, config, limits }) {
      needFiles(files, "jsonFile");
      const pointers = new Set(listOf(config.pointersName ?? config.pointers));
      const byObject = config.separateByObject === true || config.separateByObject === "true";
      const docs: Document[] = [];
      for (const f of files) {
        const json = await parseJsonFile(f, limits);
        let texts: string[];
        if (byObject && Array.isArray(json)) {
          assertDocumentCount(docs.length + json.length, limits, `File ${f.name}`);
          // One document per element of a top-level array, its selected keys (or all) as JSON.
          texts = json.map((item) =>
            typeof item === "string"
              ? item
              : JSON.stringify(
                  pointers.size && item && typeof item === "object"
                    ? Object.fromEntries(Object.entries(item).filter(([k]) => pointers.has(k)))
                    : item,
                ),
          );
        } else {
          texts = pointers.size ? valuesOf(json, pointers).flatMap((v) => strings(v)) : strings(json);
        }
        assertDocumentCount(docs.length + texts.filter((t) => t.trim()).length, limits, `File ${f.name}`);
        texts.forEach((t, i) => {
          if (t.trim()) docs.push(new Document({ pageContent: t, metadata: { source: f.name, line: i + 1 } }));
        });
      }
      assertHasText(
        docs.map((d) => d.pageContent),
        files.map((f) => f.name).join(", "),
      );
      return docs;
    },
  },
  {
    name: "jsonlinesFile",
    label: "Json Lines File",
    fileField: "jsonlinesFile",
    windows: "lines",
    accepts: byExtOrMime(["jsonl", "ndjson"], ["application/jsonl", "application/x-ndjson", "application/json", "text/plain"]),
    async load({ files, config, limits }) {
      needFiles(files, "jsonlinesFile");
      const pointer = jsonLinesPointer(config);
      const docs: Document[] = [];
      const pacer = new Pacer(500);
      for (const f of files) {
        const lines = (await decodeTextWithin(f, limits)).split(/\r?\n/);
        for (const [i, line] of lines.entries()) {
          const doc = jsonLineDocument(line, i + 1, f.name, pointer);
          if (doc) {
            docs.push(doc);
            assertDocumentCount(docs.length, limits, `File ${f.name}`);
          }
          await pacer.tick();
        }
      }
      assertHasText(
        docs.map((d) => d.pageContent),
        files.map((f) => f.name).join(", ") + (pointer ? ` (pointer "${pointer}")` : ""),
      );
      return docs;
    },
  },
];
