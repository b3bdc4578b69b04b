// BSON (bsonspec.org), the part MongoDB's commands and Flowise's documents use: double, string,
// document, array, binary, ObjectId, bool, UTC datetime, null, int32, int64 (a number when safe,
// else a bigint), and on reading also timestamps, regexes, decimal128 and the deprecated types.
// Writing: an integer number is an int32 (int64 past it), any other number a double; a
// Float64Array is an array of doubles (vectors: Atlas's $vectorSearch wants doubles, 0 included).

/** A 12-byte ObjectId, kept as its 24 hex digits. */
export class ObjectId {
  constructor(readonly hex: string) {
    if (!/^[0-9a-f]{24}$/i.test(hex)) throw new Error(`not an ObjectId: ${hex}`);
  }
  /** A new id: 4 bytes of seconds, then 8 random bytes. */
  static generate(): ObjectId {
    const bytes = crypto.getRandomValues(new Uint8Array(12));
    new DataView(bytes.buffer).setUint32(0, Math.floor(Date.now() / 1000));
    return new ObjectId(toHex(bytes));
  }
  toString(): string {
    return this.hex;
  }
  toJSON(): string {
    return this.hex;
  }
}

/** Binary data with its subtype (0 generic, 4 UUID). */
export class Binary {
  constructor(
    readonly bytes: Uint8Array,
    readonly subtype = 0,
  ) {}
}

/** A BSON timestamp (an internal type: operation times, cluster times). */
export class BsonTimestamp {
  constructor(
    readonly t: number,
    readonly i: number,
  ) {}
}

export type BsonDocument = Record<string, unknown>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;

const toHex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

class Writer {
  buf = new Uint8Array(256);
  view = new DataView(this.buf.buffer);
  at = 0;

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.at + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.at));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  byte(b: number): void {
    this.room(1);
    this.buf[this.at++] = b;
  }
  int32(n: number, at = this.at): void {
    if (at === this.at) this.room(4);
    this.view.setInt32(at, n, true);
    if (at === this.at) this.at += 4;
  }
  int64(n: bigint): void {
    this.room(8);
    this.view.setBigInt64(this.at, n, true);
    this.at += 8;
  }
  double(n: number): void {
    this.room(8);
    this.view.setFloat64(this.at, n, true);
    this.at += 8;
  }
  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
  }
  cstring(s: string): void {
    const b = encoder.encode(s);
    if (b.includes(0)) throw new Error(`a BSON key may not hold a NUL byte: ${JSON.stringify(s)}`);
    this.bytes(b);
    this.byte(0);
  }
  string(s: string): void {
    const b = encoder.encode(s);
    this.int32(b.length + 1);
    this.bytes(b);
    this.byte(0);
  }
}

/** The BSON type of `v` and how its body is written; undefined for what BSON leaves out (undefined, functions). */
function elementOf(w: Writer, v: unknown): [number, () => void] | undefined {
  if (v === undefined || typeof v === "function" || typeof v === "symbol") return undefined;
  if (v === null) return [0x0a, () => {}];
  if (typeof v === "number") {
    if (Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX && !Object.is(v, -0)) return [0x10, () => w.int32(v)];
    if (Number.isSafeInteger(v)) return [0x12, () => w.int64(BigInt(v))];
    return [0x01, () => w.double(v)];
  }
  if (typeof v === "bigint") return [0x12, () => w.int64(v)];
  if (typeof v === "string") return [0x02, () => w.string(v)];
  if (typeof v === "boolean") return [0x08, () => w.byte(v ? 1 : 0)];
  if (v instanceof Date) return [0x09, () => w.int64(BigInt(v.getTime()))];
  if (v instanceof ObjectId)
    return [
      0x07,
      () => {
        for (let i = 0; i < 24; i += 2) w.byte(Number.parseInt(v.hex.slice(i, i + 2), 16));
      },
    ];
  if (v instanceof Binary || v instanceof Uint8Array) {
    const b = v instanceof Binary ? v : new Binary(v);
    return [
      0x05,
      () => {
        w.int32(b.bytes.length);
        w.byte(b.subtype);
        w.bytes(b.bytes);
      },
    ];
  }
  if (v instanceof Float64Array) {
    return [
      0x04,
      () => {
        const start = w.at;
        w.int32(0);
        v.forEach((x, i) => {
          w.byte(0x01);
          w.cstring(String(i));
          w.double(x);
        });
        w.byte(0);
        w.int32(w.at - start, start);
      },
    ];
  }
  if (Array.isArray(v))
    return [
      0x04,
      () =>
        writeDocument(
          w,
          v.map((x, i) => [String(i), x === undefined ? null : x]),
        ),
    ];
  if (typeof v === "object") {
    const json = (v as { toJSON?: () => unknown }).toJSON;
    if (typeof json === "function") return elementOf(w, json.call(v));
    return [0x03, () => writeDocument(w, Object.entries(v as BsonDocument))];
  }
  return undefined;
}

function writeValue(w: Writer, key: string, v: unknown): void {
  const element = elementOf(w, v);
  if (!element) return;
  w.byte(element[0]);
  w.cstring(key);
  element[1]();
}

function writeDocument(w: Writer, entries: Array<[string, unknown]>): void {
  const start = w.at;
  w.int32(0);
  for (const [k, v] of entries) writeValue(w, k, v);
  w.byte(0);
  w.int32(w.at - start, start);
}

/** A document's BSON bytes. */
export function encodeBson(doc: BsonDocument): Uint8Array {
  const w = new Writer();
  writeDocument(w, Object.entries(doc));
  return w.buf.slice(0, w.at);
}

class Reader {
  readonly view: DataView;
  constructor(
    readonly buf: Uint8Array,
    public at: number,
  ) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  need(n: number): void {
    if (this.at + n > this.buf.length) throw new Error("truncated BSON");
  }
  int32(): number {
    this.need(4);
    const n = this.view.getInt32(this.at, true);
    this.at += 4;
    return n;
  }
  int64(): bigint {
    this.need(8);
    const n = this.view.getBigInt64(this.at, true);
    this.at += 8;
    return n;
  }
  cstring(): string {
    const end = this.buf.indexOf(0, this.at);
    if (end < 0) throw new Error("truncated BSON");
    const s = decoder.decode(this.buf.subarray(this.at, end));
    this.at = end + 1;
    return s;
  }
  string(): string {
    const n = this.int32();
    this.need(n);
    const s = decoder.decode(this.buf.subarray(this.at, this.at + n - 1));
    this.at += n;
    return s;
  }
  take(n: number): Uint8Array {
    this.need(n);
    const b = this.buf.slice(this.at, this.at + n);
    this.at += n;
    return b;
  }
}

const asNumber = (n: bigint): number | bigint =>
  n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;

function readValue(r: Reader, type: number): unknown {
  switch (type) {
    case 0x01: {
      r.need(8);
      const d = r.view.getFloat64(r.at, true);
      r.at += 8;
      return d;
    }
    case 0x02:
    case 0x0d:
    case 0x0e:
      return r.string();
    case 0x03:
      return readDocument(r, false);
    case 0x04:
      return readDocument(r, true);
    case 0x05: {
      const n = r.int32();
      r.need(1);
      const subtype = r.buf[r.at++];
      // Subtype 2 (old binary) repeats the length inside.
      const bytes = r.take(n);
      return new Binary(subtype === 2 ? bytes.slice(4) : bytes, subtype);
    }
    case 0x06:
    case 0x0a:
    case 0x7f:
    case 0xff:
      return null;
    case 0x07:
      return new ObjectId(toHex(r.take(12)));
    case 0x08:
      r.need(1);
      return r.buf[r.at++] !== 0;
    case 0x09:
      return new Date(Number(r.int64()));
    case 0x0b:
      return { $regex: r.cstring(), $options: r.cstring() };
    case 0x0c: {
      const ns = r.string();
      return { $ref: ns, $id: new ObjectId(toHex(r.take(12))) };
    }
    case 0x0f: {
      const total = r.int32();
      r.at += total - 4;
      return null;
    }
    case 0x10:
      return r.int32();
    case 0x11: {
      const i = r.int32() >>> 0;
      const t = r.int32() >>> 0;
      return new BsonTimestamp(t, i);
    }
    case 0x12:
      return asNumber(r.int64());
    case 0x13:
      return new Binary(r.take(16), 0x13);
    default:
      throw new Error(`unknown BSON type 0x${type.toString(16)}`);
  }
}

function readDocument(r: Reader, asArray: boolean): BsonDocument | unknown[] {
  const start = r.at;
  const size = r.int32();
  if (size < 5 || start + size > r.buf.length) throw new Error("truncated BSON");
  const end = start + size - 1;
  const out: BsonDocument = {};
  const list: unknown[] = [];
  while (r.at < end) {
    const type = r.buf[r.at++];
    const key = r.cstring();
    const value = readValue(r, type);
    if (asArray) list.push(value);
    else out[key] = value;
  }
  r.at = end + 1;
  return asArray ? list : out;
}

/** The document at `offset` of `bytes`, and where it ends. */
export function decodeBson(bytes: Uint8Array, offset = 0): { doc: BsonDocument; end: number } {
  const r = new Reader(bytes, offset);
  const doc = readDocument(r, false) as BsonDocument;
  return { doc, end: r.at };
}
