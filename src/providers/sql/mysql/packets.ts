// MySQL's packet layer: every message is a 3-byte little-endian length, a sequence id and up to
// 16 MiB − 1 of payload (a longer payload goes out as several packets, the last one shorter), and
// the small encodings inside payloads (fixed integers, length-encoded integers and strings, NUL-ended
// strings). Reading pulls bytes off the socket's stream as packets need them.
import { ByteQueue, concatBytes as concat } from "../../../lib/bytes";

export const MAX_PACKET = 0xffffff;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const utf8 = (text: string): Uint8Array => encoder.encode(text);
export const text = (bytes: Uint8Array): string => decoder.decode(bytes);

export { concat };

/** A payload being written: fixed and length-encoded integers, strings, bytes. */
export class PayloadWriter {
  private parts: Uint8Array[] = [];

  int(value: number, bytes: number): this {
    const b = new Uint8Array(bytes);
    for (let i = 0, v = value; i < bytes; i++, v = Math.floor(v / 256)) b[i] = v & 0xff;
    this.parts.push(b);
    return this;
  }

  lenencInt(value: number): this {
    if (value < 251) return this.int(value, 1);
    if (value < 0x10000) return this.int(0xfc, 1).int(value, 2);
    if (value < 0x1000000) return this.int(0xfd, 1).int(value, 3);
    return this.int(0xfe, 1).int(value, 8);
  }

  bytes(value: Uint8Array): this {
    this.parts.push(value);
    return this;
  }

  lenencBytes(value: Uint8Array): this {
    return this.lenencInt(value.length).bytes(value);
  }

  /** A string followed by a NUL. */
  cstring(value: string): this {
    return this.bytes(utf8(value)).int(0, 1);
  }

  zeros(n: number): this {
    return this.bytes(new Uint8Array(n));
  }

  done(): Uint8Array {
    return concat(this.parts);
  }
}

/** A received payload being read. */
export class PayloadReader {
  at = 0;
  constructor(readonly buf: Uint8Array) {}

  get left(): number {
    return this.buf.length - this.at;
  }

  int(bytes: number): number {
    let v = 0;
    for (let i = bytes - 1; i >= 0; i--) v = v * 256 + this.buf[this.at + i];
    this.at += bytes;
    return v;
  }

  /** A length-encoded integer; null for 0xfb (a NULL column value). */
  lenencInt(): number | null {
    const first = this.buf[this.at++];
    if (first < 0xfb) return first;
    if (first === 0xfb) return null;
    if (first === 0xfc) return this.int(2);
    if (first === 0xfd) return this.int(3);
    return this.int(8);
  }

  bytes(n: number): Uint8Array {
    const out = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  lenencBytes(): Uint8Array | null {
    const n = this.lenencInt();
    return n === null ? null : this.bytes(n);
  }

  lenencString(): string {
    return text(this.lenencBytes() ?? new Uint8Array());
  }

  /** Up to the next NUL (or the end). */
  cstring(): string {
    let end = this.buf.indexOf(0, this.at);
    if (end < 0) end = this.buf.length;
    const out = text(this.buf.subarray(this.at, end));
    this.at = Math.min(end + 1, this.buf.length);
    return out;
  }

  rest(): Uint8Array {
    return this.bytes(this.left);
  }
}

/** Frames a payload as packets from sequence id `seq` on; answers the bytes and the next sequence id. */
export function frame(payload: Uint8Array, seq: number): { bytes: Uint8Array; seq: number } {
  const parts: Uint8Array[] = [];
  let at = 0;
  for (;;) {
    const n = Math.min(MAX_PACKET, payload.length - at);
    parts.push(new Uint8Array([n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, seq & 0xff]), payload.subarray(at, at + n));
    seq = (seq + 1) & 0xff;
    at += n;
    if (n < MAX_PACKET) break;
  }
  return { bytes: concat(parts), seq };
}

/** Reads whole payloads (joined across 16 MiB packets) off a byte stream. */
export class PacketReader {
  private readonly buf = new ByteQueue();
  /** The sequence id after the last packet read. */
  seq = 0;

  constructor(private reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** Lets go of the stream (before STARTTLS replaces it). */
  release(): void {
    this.reader.releaseLock();
  }

  private async fill(n: number): Promise<void> {
    while (this.buf.length < n) {
      const { done, value } = await this.reader.read();
      if (done) throw new Error("the server closed the connection");
      this.buf.push(value);
    }
  }

  async next(): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    for (;;) {
      await this.fill(4);
      const head = this.buf.take(4);
      const n = head[0] | (head[1] << 8) | (head[2] << 16);
      this.seq = (head[3] + 1) & 0xff;
      await this.fill(n);
      parts.push(this.buf.take(n));
      if (n < MAX_PACKET) break;
    }
    return parts.length === 1 ? parts[0] : concat(parts);
  }
}
