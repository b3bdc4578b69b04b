// multipart/form-data read as it arrives, part by part, never the whole body at once: a file part's
// bytes are handed on in pieces (an upload of 100 MB goes to R2 without 100 MB in memory). Parts
// come in order; each part's data must be read (or skipped) before the next part is reached.
import { fail } from "../errors";

export interface PartHead {
  /** The form field name. */
  name: string;
  /** Present for a file part (possibly ""). */
  filename?: string;
  /** Its Content-Type ("" when not given). */
  type: string;
}

/** The boundary of a multipart/form-data Content-Type; 400 when there is none. */
export function boundaryOf(contentType: string): string {
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary || boundary.length > 200) throw fail("BAD_REQUEST", "Malformed multipart/form-data body: no boundary in its Content-Type");
  return boundary;
}

const CR = 13;
const LF = 10;
const DASH = 45;
/** A part's headers may not be longer than this. */
const MAX_HEAD = 16 * 1024;

const malformed = (why: string) => fail("BAD_REQUEST", `Malformed multipart/form-data body: ${why}`);

/** First index of `pattern` in `buf` at or after `from`, or -1. */
function indexOf(buf: Uint8Array, pattern: Uint8Array, from = 0): number {
  const first = pattern[0];
  const last = buf.length - pattern.length;
  for (let i = buf.indexOf(first, from); i !== -1 && i <= last; i = buf.indexOf(first, i + 1)) {
    let j = 1;
    while (j < pattern.length && buf[i + j] === pattern[j]) j++;
    if (j === pattern.length) return i;
  }
  return -1;
}

function parseHead(text: string): PartHead {
  let disposition = "";
  let type = "";
  for (const line of text.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === "content-disposition") disposition = value;
    else if (key === "content-type") type = value;
  }
  if (!/^form-data\b/i.test(disposition)) throw malformed("a part without Content-Disposition: form-data");
  const param = (key: string): string | undefined => {
    const m = new RegExp(`;\\s*${key}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;]*))`, "i").exec(disposition);
    if (!m) return undefined;
    // Browsers (and workerd's FormData) write `"`, CR and LF in a quoted name as %22, %0D, %0A.
    return m[1] !== undefined
      ? m[1].replace(/%22/gi, '"').replace(/%0D/gi, "\r").replace(/%0A/gi, "\n").replace(/\\(.)/g, "$1")
      : m[2].trim();
  };
  const name = param("name");
  if (name === undefined) throw malformed("a part without a field name");
  const filename = param("filename");
  return { name, ...(filename !== undefined ? { filename } : {}), type };
}

/**
 * The parts of a multipart/form-data body, in order. `onPart` gets each part's head and a reader of
 * its data: `read()` answers the next piece (undefined at the part's end). Pieces are views into
 * the parser's buffer, valid until the next read: copy what must be kept.
 */
export async function readParts(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  onPart: (head: PartHead, read: () => Promise<Uint8Array | undefined>) => Promise<void>,
): Promise<void> {
  const reader = body.getReader();
  const encoder = new TextEncoder();
  // The body as if it began with CRLF, so the first boundary line looks like every other one.
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  let buf: Uint8Array = new Uint8Array([CR, LF]);
  let done = false;

  /** Reads more of the body onto the end of what is left; false at its end. */
  const more = async (): Promise<boolean> => {
    if (done) return false;
    const { value, done: end } = await reader.read();
    if (end) {
      done = true;
      return false;
    }
    if (!value?.length) return true;
    const next = new Uint8Array(buf.length + value.length);
    next.set(buf);
    next.set(value, buf.length);
    buf = next;
    return true;
  };

  try {
    // The preamble, then the first delimiter.
    let at: number;
    while ((at = indexOf(buf, delimiter)) < 0) {
      if (buf.length > delimiter.length) buf = buf.slice(buf.length - delimiter.length);
      if (!(await more())) throw malformed("no boundary line");
    }
    buf = buf.slice(at + delimiter.length);
    for (;;) {
      while (buf.length < 2) if (!(await more())) throw malformed("it ends inside a boundary line");
      if (buf[0] === DASH && buf[1] === DASH) return; // the closing delimiter: the epilogue is ignored
      // Transport padding, then CRLF, then the part's headers up to an empty line.
      let headEnd: number;
      while ((headEnd = indexOf(buf, encoder.encode("\r\n\r\n"))) < 0) {
        if (buf.length > MAX_HEAD) throw malformed(`a part's headers are longer than ${MAX_HEAD} bytes`);
        if (!(await more())) throw malformed("it ends inside a part's headers");
      }
      const lineEnd = indexOf(buf, encoder.encode("\r\n"));
      const head = parseHead(new TextDecoder().decode(buf.subarray(lineEnd + 2, headEnd + 2)));
      buf = buf.slice(headEnd + 4);

      let ended = false;
      const read = async (): Promise<Uint8Array | undefined> => {
        while (!ended) {
          const found = indexOf(buf, delimiter);
          if (found >= 0) {
            ended = true;
            const piece = buf.subarray(0, found);
            buf = buf.subarray(found + delimiter.length);
            if (piece.length) return piece;
            return undefined;
          }
          // All but a tail that could be the start of the delimiter is the part's (each byte is
          // searched about once: what is handed out is not searched again).
          const safe = buf.length - (delimiter.length - 1);
          if (safe > 0) {
            const piece = buf.subarray(0, safe);
            buf = buf.subarray(safe);
            return piece;
          }
          if (!(await more())) throw malformed("it ends inside a part");
        }
        return undefined;
      };
      await onPart(head, read);
      while (await read()); // what the handler left unread
      buf = buf.slice(); // detach from the pieces handed out
    }
  } finally {
    reader.releaseLock();
  }
}
