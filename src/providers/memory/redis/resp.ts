// RESP2, Redis's wire protocol: commands go out as arrays of bulk strings, replies come back as
// simple strings (+), errors (-), integers (:), bulk strings ($, -1 = nil) and arrays (*).
// The reader takes bytes as they arrive and gives each complete reply.
import { concatBytes } from "../../../lib/bytes";

/** Bulk strings are text, or bytes as they came when the reader was made `binary` (a vector's float32s). */
export type RespValue = string | number | null | RespValue[] | RespError | Uint8Array;

/** A reply of type error (-ERR …): returned as a value, so one failed command in a pipeline does not hide the others. */
export class RespError {
  constructor(readonly message: string) {}
}

const encoder = new TextEncoder();

/** One command as RESP bytes (lengths in bytes, so any UTF-8 text goes through; bytes go as they are). */
export function encodeCommand(args: Array<string | number | Uint8Array>): Uint8Array {
  const parts: Uint8Array[] = [encoder.encode(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = arg instanceof Uint8Array ? arg : encoder.encode(String(arg));
    parts.push(encoder.encode(`$${bytes.length}\r\n`), bytes, encoder.encode("\r\n"));
  }
  return concatBytes(parts);
}

/** Thrown for bytes that are not RESP: the connection cannot be trusted after it. */
class RespProtocolError extends Error {}

export class RespReader {
  private buf = new Uint8Array(0);
  private readonly decoder = new TextDecoder();

  /** `binary`: bulk strings are answered as bytes, not decoded as UTF-8. */
  constructor(private readonly binary = false) {}

  push(chunk: Uint8Array): void {
    this.buf = concatBytes([this.buf, chunk]);
  }

  /** The next complete reply, or undefined until more bytes arrive. */
  next(): RespValue | undefined {
    const parsed = this.parse(0);
    if (!parsed) return undefined;
    this.buf = this.buf.slice(parsed.end);
    return parsed.value;
  }

  private line(from: number): { text: string; end: number } | undefined {
    for (let i = from; i + 1 < this.buf.length; i++) {
      if (this.buf[i] === 13 && this.buf[i + 1] === 10) return { text: this.decoder.decode(this.buf.subarray(from, i)), end: i + 2 };
    }
    return undefined;
  }

  private parse(at: number): { value: RespValue; end: number } | undefined {
    if (at >= this.buf.length) return undefined;
    const type = String.fromCharCode(this.buf[at]);
    const head = this.line(at + 1);
    if (!head) return undefined;
    switch (type) {
      case "+":
        return { value: head.text, end: head.end };
      case "-":
        return { value: new RespError(head.text), end: head.end };
      case ":":
        return { value: Number(head.text), end: head.end };
      case "$": {
        const len = Number(head.text);
        if (len < 0) return { value: null, end: head.end };
        if (head.end + len + 2 > this.buf.length) return undefined;
        const bytes = this.buf.subarray(head.end, head.end + len);
        return { value: this.binary ? bytes.slice() : this.decoder.decode(bytes), end: head.end + len + 2 };
      }
      case "*": {
        const n = Number(head.text);
        if (n < 0) return { value: null, end: head.end };
        const items: RespValue[] = [];
        let end = head.end;
        for (let i = 0; i < n; i++) {
          const item = this.parse(end);
          if (!item) return undefined;
          items.push(item.value);
          end = item.end;
        }
        return { value: items, end };
      }
      default:
        throw new RespProtocolError(`not a Redis reply (starts with ${JSON.stringify(type)})`);
    }
  }
}
