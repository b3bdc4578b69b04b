// Reads one entry of a zip archive (a DOCX part) within limits, without trusting the sizes the
// archive declares: the central directory is walked (entries counted against a limit), the entry's
// data inflated in small steps with its real output counted, and the loop yields every few steps
// (fewer when they inflate much).
// A zip bomb (a small file that inflates to hundreds of MB) is refused at the limit, not after.
import { Inflate } from "fflate";
import { ApiError, fail } from "../../errors";
import { Pacer } from "../../lib/pace";
import { errorMessage } from "../../lib/error-message";

export interface ZipLimits {
  maxEntries: number;
  maxBytes: number;
  /** The error for too many entries (the count when known). */
  tooManyEntries(count?: number): Error;
  /** The error for an entry that inflates to more than maxBytes (its declared size when known). */
  tooLarge(declared?: number): Error;
}

const EOCD = 0x06054b50;
const EOCD64_LOCATOR = 0x07064b50;
const EOCD64 = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const U32_MAX = 0xffffffff;
/** Compressed bytes per inflate step: at deflate's best ratio (about 1:1032) a step makes at most ~4 MB. */
const STEP = 4096;
/** Inflated bytes that weigh as much as a step: a slice inflates at most 64 steps' worth. */
const STEP_OUT = 64 * 1024;

class Reader {
  constructor(private readonly b: Uint8Array) {}
  u16(at: number): number {
    this.need(at, 2);
    return this.b[at] | (this.b[at + 1] << 8);
  }
  u32(at: number): number {
    this.need(at, 4);
    return (this.b[at] | (this.b[at + 1] << 8) | (this.b[at + 2] << 16) | (this.b[at + 3] << 24)) >>> 0;
  }
  u64(at: number): number {
    return this.u32(at) + this.u32(at + 4) * 2 ** 32;
  }
  private need(at: number, n: number): void {
    if (at < 0 || at + n > this.b.length) throw fail("INVALID_INPUT", "the zip archive is truncated or corrupt");
  }
}

interface Directory {
  count: number;
  offset: number;
}

function directory(bytes: Uint8Array, r: Reader): Directory {
  let e = bytes.length - 22;
  const stop = Math.max(0, bytes.length - 22 - 65535);
  while (e >= stop && r.u32(e) !== EOCD) e--;
  if (e < stop) throw fail("INVALID_INPUT", "it is not a zip archive (no end of central directory)");
  let count = r.u16(e + 10);
  let offset = r.u32(e + 16);
  if ((count === 0xffff || offset === U32_MAX) && e >= 20 && r.u32(e - 20) === EOCD64_LOCATOR) {
    const at = r.u64(e - 12);
    if (r.u32(at) !== EOCD64) throw fail("INVALID_INPUT", "the zip archive's ZIP64 directory is corrupt");
    count = r.u64(at + 32);
    offset = r.u64(at + 48);
  }
  return { count, offset };
}

interface Entry {
  method: number;
  compressed: number;
  size: number;
  local: number;
}

/** Sizes and offset from the ZIP64 extra field, for the values the header left at 0xFFFFFFFF. */
function zip64Extra(r: Reader, at: number, length: number, entry: Entry): void {
  for (let p = at; p + 4 <= at + length; ) {
    const id = r.u16(p);
    const size = r.u16(p + 2);
    if (id === 0x0001) {
      let q = p + 4;
      if (entry.size === U32_MAX) (entry.size = r.u64(q)), (q += 8);
      if (entry.compressed === U32_MAX) (entry.compressed = r.u64(q)), (q += 8);
      if (entry.local === U32_MAX) entry.local = r.u64(q);
      return;
    }
    p += 4 + size;
  }
}

/** Finds `name` in the central directory, counting every entry against the limit. */
async function find(bytes: Uint8Array, r: Reader, name: string, limits: ZipLimits): Promise<Entry | undefined> {
  const dir = directory(bytes, r);
  if (dir.count > limits.maxEntries) throw limits.tooManyEntries(dir.count);
  const wanted = new TextEncoder().encode(name);
  const pacer = new Pacer();
  let found: Entry | undefined;
  let p = dir.offset;
  for (let i = 0; i < dir.count; i++) {
    if (r.u32(p) !== CENTRAL) throw fail("INVALID_INPUT", "the zip archive's central directory is corrupt");
    const nameLength = r.u16(p + 28);
    const extraLength = r.u16(p + 30);
    const commentLength = r.u16(p + 32);
    if (!found && nameLength === wanted.length && bytes.subarray(p + 46, p + 46 + nameLength).every((b, j) => b === wanted[j])) {
      found = { method: r.u16(p + 10), compressed: r.u32(p + 20), size: r.u32(p + 24), local: r.u32(p + 42) };
      zip64Extra(r, p + 46 + nameLength, extraLength, found);
    }
    p += 46 + nameLength + extraLength + commentLength;
    await pacer.tick();
  }
  return found;
}

/** The names of an archive's entries (central directory order), counted against the entry limit. */
export async function zipEntryNames(bytes: Uint8Array, limits: ZipLimits): Promise<string[]> {
  const r = new Reader(bytes);
  const dir = directory(bytes, r);
  if (dir.count > limits.maxEntries) throw limits.tooManyEntries(dir.count);
  const decoder = new TextDecoder();
  const pacer = new Pacer();
  const names: string[] = [];
  for (let i = 0, p = dir.offset; i < dir.count; i++) {
    if (r.u32(p) !== CENTRAL) throw fail("INVALID_INPUT", "the zip archive's central directory is corrupt");
    const nameLength = r.u16(p + 28);
    names.push(decoder.decode(bytes.subarray(p + 46, p + 46 + nameLength)));
    p += 46 + nameLength + r.u16(p + 30) + r.u16(p + 32);
    await pacer.tick();
  }
  return names;
}

/**
 * The text of one entry (UTF-8), or undefined when the archive has no such entry. 400 for an
 * archive that is not a readable zip; the limits' errors for too many entries or too much output.
 */
export async function readZipText(bytes: Uint8Array, name: string, limits: ZipLimits): Promise<string | undefined> {
  const r = new Reader(bytes);
  const entry = await find(bytes, r, name, limits);
  if (!entry) return undefined;
  if (entry.size > limits.maxBytes) throw limits.tooLarge(entry.size);
  if (r.u32(entry.local) !== LOCAL) throw fail("INVALID_INPUT", `the zip entry ${name} is corrupt`);
  const start = entry.local + 30 + r.u16(entry.local + 26) + r.u16(entry.local + 28);
  const data = bytes.subarray(start, start + entry.compressed);
  if (data.length < entry.compressed) throw fail("INVALID_INPUT", `the zip entry ${name} is truncated`);

  const decoder = new TextDecoder();
  const parts: string[] = [];
  let total = 0;
  const take = (chunk: Uint8Array) => {
    total += chunk.length;
    if (total > limits.maxBytes) throw limits.tooLarge();
    parts.push(decoder.decode(chunk, { stream: true }));
  };
  if (entry.method === 0) take(data);
  else if (entry.method === 8) {
    const inflater = new Inflate(take);
    const pacer = new Pacer(64);
    for (let at = 0; at < data.length || at === 0; at += STEP) {
      const last = at + STEP >= data.length;
      const before = total;
      try {
        inflater.push(data.subarray(at, at + STEP), last);
      } catch (err) {
        if (err instanceof ApiError) throw err; // a limit's error
        throw fail("INVALID_INPUT", `the zip entry ${name} cannot be inflated: ${errorMessage(err)}`);
      }
      if (last) break;
      await pacer.tick(1 + (total - before) / STEP_OUT);
    }
  } else throw fail("INVALID_INPUT", `the zip entry ${name} uses compression method ${entry.method}, which is not supported`);
  parts.push(decoder.decode());
  return parts.join("");
}
