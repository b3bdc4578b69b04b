// RESP2, Redis's wire protocol: commands go out as arrays of bulk strings, replies come back as
// simple strings (+), errors (-), integers (:), bulk strings ($, -1 = nil) and arrays (*).
// The reader takes bytes as they arrive and gives each complete reply.
import { ByteQueue, concatBytes } from "../../../lib/bytes";

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

/** An array being filled: its items so far and how many are still to come. */
interface OpenArray {
  items: RespValue[];
  left: number;
}

/**
 * Replies read as their bytes arrive, one element at a time: what is parsed stays parsed, and a bulk
 * string waits whole in the queue until all its bytes are there. (Parsing the whole buffer again per
 * chunk, after copying it into one array, was quadratic: a long session's LRANGE in 64 KB chunks.)
 */
export class RespReader {
  private readonly queue = new ByteQueue();
  private readonly open: OpenArray[] = [];
  private readonly decoder = new TextDecoder();

  /** `binary`: bulk strings are answered as bytes, not decoded as UTF-8. */
  constructor(private readonly binary = false) {}

  push(chunk: Uint8Array): void {
    this.queue.push(chunk);
  }

  /** The next complete reply, or undefined until more bytes arrive. */
  next(): RespValue | undefined {
    for (;;) {
      const element = this.element();
      if (element === undefined) return undefined;
      let value = element.value;
      if (element.opens) {
        this.open.push({ items: [], left: element.opens });
        continue;
      }
      // A finished value fills its array; a filled array is a finished value of the one around it.
      for (;;) {
        const top = this.open.at(-1);
        if (!top) return value;
        top.items.push(value);
        if (--top.left > 0) break;
        this.open.pop();
        value = top.items;
      }
    }
  }

  /** The next element (an array's header opens it), taken from the queue; undefined until it is all there. */
  private element(): { value: RespValue; opens?: number } | undefined {
    if (this.queue.length < 3) return undefined;
    const lf = this.queue.indexOf(10);
    if (lf < 0) return undefined;
    const head = this.queue.peek(lf + 1);
    if (head[lf - 1] !== 13) throw new RespProtocolError("a Redis reply line without CR LF");
    const type = String.fromCharCode(head[0]);
    const text = this.decoder.decode(head.subarray(1, lf - 1));
    if (type === "$") {
      const len = Number(text);
      if (len < 0) return this.taken(lf + 1, null);
      if (this.queue.length < lf + 1 + len + 2) return undefined;
      this.queue.take(lf + 1);
      const bytes = this.queue.take(len);
      this.queue.take(2);
      return { value: this.binary ? bytes.slice() : this.decoder.decode(bytes) };
    }
    if (type === "*") {
      const n = Number(text);
      if (n <= 0) return this.taken(lf + 1, n < 0 ? null : []);
      this.queue.take(lf + 1);
      return { value: null, opens: n };
    }
    if (type === "+") return this.taken(lf + 1, text);
    if (type === "-") return this.taken(lf + 1, new RespError(text));
    if (type === ":") return this.taken(lf + 1, Number(text));
    throw new RespProtocolError(`not a Redis reply (starts with ${JSON.stringify(type)})`);
  }

  private taken(bytes: number, value: RespValue): { value: RespValue } {
    this.queue.take(bytes);
    return { value };
  }
}
