// JSON and JSON Lines files. jsonFile: every string value (LangChain's JSONLoader), or those under
// `pointersName` keys, or one document per element of a top-level array (`separateByObject`);
// jsonlinesFile: one document per line, or its `pointerName` value. A JSON file is parsed a piece
// at a time (json-paced.ts, which also refuses nesting deeper than src/lib/json-depth.ts allows)
// and walked without recursion, yielding as it goes; the document count is checked as it grows.
import { Document } from "@langchain/core/documents";
import { fail } from "../../errors";
import { jsonTooDeep, tooDeepMessage } from "../../lib/json-depth";
import { jsonRefusal, parseJsonPaced } from "./json-paced";
import { Pacer } from "../../lib/pace";
import { assertDocumentCount, assertHasText, byExtOrMime, decodeTextWithin, needFiles } from "./text-util";
import type { LoaderDefinition, LoaderFile } from "./types";
import type { WorkLimits } from "../../lib/limits";

/**
 * Every string value in a JSON value, depth first in document order (what LangChain's JSONLoader
 * indexes), or with `keys` only those under the named keys wherever they appear. Iterative (the
 * value may nest MAX_JSON_DEPTH deep) and paced; `onString` may throw to stop the walk.
 */
async function eachString(root: unknown, keys: Set<string> | undefined, onString: (s: string) => void): Promise<void> {
  const pacer = new Pacer();
  // Frames of the arrays and objects being walked, each at its next member: nothing is copied whole.
  type Frame = { members: unknown[] | Array<[string, unknown]>; keyed: boolean; next: number; picked: boolean };
  const stack: Frame[] = [];
  const visit = (value: unknown, picked: boolean) => {
    if (typeof value === "string") {
      if (picked) onString(value);
    } else if (Array.isArray(value)) stack.push({ members: value, keyed: false, next: 0, picked });
    else if (value && typeof value === "object") stack.push({ members: Object.entries(value), keyed: true, next: 0, picked });
  };
  visit(root, !keys?.size);
  while (stack.length) {
    const frame = stack[stack.length - 1];
    if (frame.next >= frame.members.length) {
      stack.pop();
      continue;
    }
    const member = frame.members[frame.next++];
    if (frame.keyed) {
      const [key, value] = member as [string, unknown];
      visit(value, frame.picked || keys!.has(key));
    } else visit(member, frame.picked);
    const wait = pacer.tick();
    if (wait) await wait;
  }
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
  try {
    return await parseJsonPaced(text);
  } catch (err) {
    throw jsonRefusal(err, `File ${file.name}`, tooDeepMessage(`File ${file.name}`));
  }
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
    throw fail("INVALID_INPUT", `File ${fileName} line ${lineNo} is not valid JSON`);
  }
  if (jsonTooDeep(value)) throw fail("INVALID_INPUT", tooDeepMessage(`File ${fileName} line ${lineNo}`));
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
        const subject = `File ${f.name}`;
        let line = 0;
        const add = (text: string) => {
          line++;
          if (!text.trim()) return;
          docs.push(new Document({ pageContent: text, metadata: { source: f.name, line } }));
          assertDocumentCount(docs.length, limits, subject);
        };
        if (byObject && Array.isArray(json)) {
          assertDocumentCount(docs.length + json.length, limits, subject);
          // One document per element of a top-level array, its selected keys (or all) as JSON.
          const pacer = new Pacer(256);
          for (const item of json) {
            const picked =
              pointers.size && item && typeof item === "object"
                ? Object.fromEntries(Object.entries(item).filter(([k]) => pointers.has(k)))
                : item;
            add(typeof item === "string" ? item : JSON.stringify(picked));
            const wait = pacer.tick();
            if (wait) await wait;
          }
        } else {
          await eachString(json, pointers, add);
        }
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
