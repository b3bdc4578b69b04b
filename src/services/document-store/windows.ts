// A text or JSON Lines file read a window at a time (UPSERT_WINDOW_MB of bytes, one range read),
// decoded, made into documents by its loader's rules and split; nothing of the file but the
// window is held. Text keeps the splitter's last chunk of a window back and splits it again at the
// start of the next one (it may grow there), so the chunks are those of splitting the whole text,
// only never more than a window of it at once. JSON Lines windows end at a line's end.
import { Document } from "@langchain/core/documents";
import type { TextSplitter } from "@langchain/textsplitters";
import { badRequest } from "../../errors";
import { type WorkLimits, megabytes, overLimit } from "../../lib/limits";
import { jsonLineDocument } from "../../providers/loaders/json";
import { assertTextStart } from "../../providers/loaders/text-util";

/** A file's bytes, read a range at a time. */
export interface ByteSource {
  readonly name: string;
  readonly size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
}

/** A file kept in R2, read by range. */
export async function r2Source(bucket: R2Bucket, key: string, name: string): Promise<ByteSource> {
  const head = await bucket.head(key);
  if (!head) throw badRequest(`File ${name} is no longer in storage: upload it again`);
  return {
    name,
    size: head.size,
    async read(offset, length) {
      if (length <= 0) return new Uint8Array(0);
      const obj = await bucket.get(key, { range: { offset, length } });
      if (!obj) throw badRequest(`File ${name} is no longer in storage: upload it again`);
      return new Uint8Array(await obj.arrayBuffer());
    },
  };
}

/** A file in memory (a data URI from a JSON body: MAX_BODY_MB at most). */
export const memorySource = (name: string, bytes: Uint8Array): ByteSource => ({
  name,
  size: bytes.length,
  read: async (offset, length) => bytes.subarray(offset, offset + length),
});

/** Where a file's next window starts: its byte offset, the line there, and (text) what the last window held back. */
export interface FilePosition {
  offset: number;
  line: number;
  carry?: string;
}

export const START: FilePosition = { offset: 0, line: 1 };

export interface WindowOptions {
  kind: "text" | "lines";
  splitter: TextSplitter;
  /** Bytes per window. */
  bytes: number;
  limits: WorkLimits;
  /** The loader's `metadata` / `omitMetadataKeys` applied to each document. */
  shape(metadata: Record<string, unknown>): Record<string, unknown>;
  /** JSON Lines: the key whose value each line's document holds. */
  pointer?: string;
}

export interface Window {
  chunks: Document[];
  /** Where the file's next window starts (offset = size: the file is done). */
  next: FilePosition;
}

/** Text held back for the next window is kept in the loader's progress: never more than this. */
const MAX_CARRY = 64 * 1024;
/** JSON Lines lines per window: each is a document, and documents cost more than their text. */
const MAX_LINES = 5_000;
const LF = 10;

/**
 * A window's byte budget for a splitter: as many bytes as make about 4,000 chunks of its size (at
 * least 64 KB), never more than UPSERT_WINDOW_MB: a tiny chunk size would otherwise give
 * hundreds of thousands of chunks per window.
 */
export const windowBytes = (limits: WorkLimits, chunkSize: number): number =>
  Math.max(1024, Math.min(megabytes(limits.windowMb), Math.max(64 * 1024, 4_000 * chunkSize)));

/** Where `bytes` may be cut without splitting a UTF-8 character (before an unfinished one at the end). */
export function charBoundary(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const b = bytes[bytes.length - back];
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back for its lead
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

/** A file's start is checked for binary content; a BOM there is dropped (TextDecoder does, when not told to keep it). */
function decode(bytes: Uint8Array, atStart: boolean, name: string): string {
  if (atStart) assertTextStart(bytes, name);
  return new TextDecoder("utf-8", { fatal: false, ignoreBOM: !atStart }).decode(bytes);
}

/** Chunks as an upsert stores them: NUL characters cannot be stored as text (Flowise strips them too), empty ones dropped. */
const storable = (chunks: Document[]): Document[] =>
  chunks
    .map((c) =>
      c.pageContent.includes("\u0000") ? new Document({ pageContent: c.pageContent.replaceAll("\u0000", ""), metadata: c.metadata }) : c,
    )
    .filter((c) => c.pageContent.trim());

const countLines = (text: string, end: number): number => {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < end; i = text.indexOf("\n", i + 1)) n++;
  return n;
};

/** Chunks looked back over for one that starts a line. */
const LOOK_BACK = 16;

/**
 * What of a window's text is split again in the next one: from a chunk that starts a line (where
 * the splitter's own pieces begin: it keeps the line break before a piece with it), so the next
 * window starts as splitting the whole text would have there; chunks from it on are dropped here.
 * Else from the last chunk. Undefined when nothing can be held back (one chunk, or too long).
 */
function heldBack(text: string, chunks: Document[]): { from: number; keep: number } | undefined {
  let end = text.length;
  let fallback: { from: number; keep: number } | undefined;
  for (let k = chunks.length - 1; k >= 1 && k >= chunks.length - LOOK_BACK; k--) {
    const start = text.lastIndexOf(chunks[k].pageContent, end);
    if (start <= 0 || text.length - start > MAX_CARRY) break;
    let from = start;
    while (from > 0 && /\s/.test(text[from - 1])) from--;
    if (text.slice(from, start).includes("\n")) return { from, keep: k };
    fallback ??= { from: start, keep: k };
    end = start - 1;
  }
  return fallback;
}

/** The next window of `src` from `at`. */
export function readWindow(src: ByteSource, at: FilePosition, opts: WindowOptions): Promise<Window> {
  return opts.kind === "text" ? textWindow(src, at, opts) : linesWindow(src, at, opts);
}

async function textWindow(src: ByteSource, at: FilePosition, opts: WindowOptions): Promise<Window> {
  const raw = await src.read(at.offset, Math.min(opts.bytes, src.size - at.offset));
  const fileEnds = at.offset + raw.length >= src.size;
  const cut = fileEnds ? raw.length : charBoundary(raw);
  const text = (at.carry ?? "") + decode(raw.subarray(0, cut), at.offset === 0, src.name);
  const doc = new Document({ pageContent: text, metadata: opts.shape({ source: src.name }) });
  const chunks = await opts.splitter.splitDocuments([doc]);
  let next: FilePosition = { offset: at.offset + cut, line: at.line + countLines(text, text.length) };
  const held = fileEnds ? undefined : heldBack(text, chunks);
  if (held) {
    chunks.length = held.keep;
    next = { offset: at.offset + cut, line: at.line + countLines(text, held.from), carry: text.slice(held.from) };
  }
  // Line numbers as in the whole file: the splitter counted from this window's first line.
  for (const c of chunks) {
    const lines = (c.metadata.loc as { lines?: { from: number; to: number } } | undefined)?.lines;
    if (lines && at.line > 1)
      c.metadata.loc = { ...(c.metadata.loc as object), lines: { from: lines.from + at.line - 1, to: lines.to + at.line - 1 } };
  }
  return { chunks: storable(chunks), next };
}

async function linesWindow(src: ByteSource, at: FilePosition, opts: WindowOptions): Promise<Window> {
  const { limits } = opts;
  let raw = await src.read(at.offset, Math.min(opts.bytes, src.size - at.offset));
  let cut = endOfLines(raw, at.offset + raw.length >= src.size);
  while (cut === 0) {
    // One line longer than a window: read on to its end, as long as a line may be (MAX_TEXT_MB).
    if (raw.length > megabytes(limits.textMb)) throw overLimit(limits, "textMb", `File ${src.name} line ${at.line}`);
    const more = await src.read(at.offset + raw.length, Math.min(opts.bytes, src.size - at.offset - raw.length));
    const grown = new Uint8Array(raw.length + more.length);
    grown.set(raw);
    grown.set(more, raw.length);
    raw = grown;
    cut = endOfLines(raw, at.offset + raw.length >= src.size);
  }
  const lines = decode(raw.subarray(0, cut), at.offset === 0, src.name).split("\n");
  if (lines[lines.length - 1] === "") lines.pop(); // the window ends with a line's end
  const docs: Document[] = [];
  lines.forEach((line, i) => {
    const doc = jsonLineDocument(line.endsWith("\r") ? line.slice(0, -1) : line, at.line + i, src.name, opts.pointer);
    if (doc) docs.push(new Document({ pageContent: doc.pageContent, metadata: opts.shape(doc.metadata) }));
  });
  const chunks = docs.length ? await opts.splitter.splitDocuments(docs) : [];
  return { chunks: storable(chunks), next: { offset: at.offset + cut, line: at.line + lines.length } };
}

/** Where a JSON Lines window ends: after its MAX_LINES-th line, else its last whole line (0: none ends in it). */
function endOfLines(raw: Uint8Array, fileEnds: boolean): number {
  let at = -1;
  for (let n = 0; n < MAX_LINES; n++) {
    const lf = raw.indexOf(LF, at + 1);
    if (lf === -1) return fileEnds ? raw.length : at + 1;
    at = lf;
  }
  return at + 1;
}
