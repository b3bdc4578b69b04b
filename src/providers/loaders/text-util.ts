// Shared by the file loaders: names, decoding, kinds of file, and the limit checks they share.
import { fail } from "../../errors";
import { type WorkLimits, megabytes, overLimit } from "../../lib/limits";
import { yieldToEventLoop } from "../../lib/pace";
import type { LoaderFile } from "./types";

export const extensionOf = (name: string): string => {
  const dot = name.lastIndexOf(".");
  return dot >= 0 ? name.slice(dot + 1).toLowerCase() : "";
};

export function assertNotEmpty(file: LoaderFile): void {
  if (file.bytes.length === 0) throw fail("INVALID_INPUT", `File ${file.name} is empty`);
}

/** Bytes decoded between yields: decoding megabytes at once holds the isolate for a noticeable while. */
const DECODE_STEP = 1024 * 1024;

/** Bytes at the start of a file looked at for NUL bytes, which text files do not have. */
const SNIFF_BYTES = 8192;

/** Refuses a file whose first bytes show it is binary (the start of the file, at least SNIFF_BYTES of it). */
export function assertTextStart(start: Uint8Array, name: string): void {
  if (start.subarray(0, SNIFF_BYTES).includes(0)) throw fail("INVALID_INPUT", `File ${name} is not a text file`);
}

/** UTF-8 text of a file (a BOM dropped); a file that is plainly binary is refused. */
async function decodeText(file: LoaderFile): Promise<string> {
  assertNotEmpty(file);
  assertTextStart(file.bytes, file.name);
  const decoder = new TextDecoder("utf-8");
  const parts: string[] = [];
  for (let at = 0; at < file.bytes.length; at += DECODE_STEP) {
    parts.push(decoder.decode(file.bytes.subarray(at, at + DECODE_STEP), { stream: true }));
    if (at + DECODE_STEP < file.bytes.length) await yieldToEventLoop();
  }
  parts.push(decoder.decode());
  const text = parts.join("");
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export function assertHasText(texts: string[], what: string): void {
  if (!texts.some((t) => t.trim().length > 0)) throw fail("INVALID_INPUT", `No text found in ${what}`);
}

export function needFiles(files: LoaderFile[], loader: string): void {
  if (!files.length) throw fail("INVALID_INPUT", `${loader} needs a file: upload one in \`files\` or give it in the loader config`);
}

const BINARY_MIME = /^(image|audio|video|font)\/|^application\/(pdf|zip|x-zip|gzip|x-tar|octet-stream|msword|vnd\.)/;
const BINARY_EXT = new Set([
  "pdf",
  "docx",
  "doc",
  "xlsx",
  "xls",
  "pptx",
  "ppt",
  "zip",
  "gz",
  "tar",
  "png",
  "jpg",
  "jpeg",
  "gif",
  "webp",
  "mp3",
  "mp4",
  "wav",
  "exe",
  "bin",
]);

/** A file a text loader can read: not a known binary kind by extension or MIME type. */
export const isTextLike = (f: { name: string; mime: string }): boolean =>
  !BINARY_EXT.has(extensionOf(f.name)) && !BINARY_MIME.test(f.mime.toLowerCase());

export const byExtOrMime = (exts: string[], mimes: string[]) => (f: { name: string; mime: string }) =>
  exts.includes(extensionOf(f.name)) || mimes.some((m) => f.mime.toLowerCase().startsWith(m)) || (isTextLike(f) && !extensionOf(f.name));

/** decodeText, after refusing a file larger than the text limit (before any of it is decoded). */
export function decodeTextWithin(file: LoaderFile, limits: WorkLimits): Promise<string> {
  if (file.bytes.length > megabytes(limits.textMb)) {
    throw overLimit(limits, "textMb", `File ${file.name}`, Math.ceil(file.bytes.length / 1024 / 1024));
  }
  return decodeText(file);
}

/** Refuses a file that would give more documents than an upsert may have chunks (each document is at least one). */
export function assertDocumentCount(count: number, limits: WorkLimits, subject: string): void {
  if (count > limits.chunks) throw overLimit(limits, "chunks", subject);
}
