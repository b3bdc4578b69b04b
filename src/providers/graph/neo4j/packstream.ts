// PackStream v1, the value encoding of Neo4j's Bolt protocol: null, booleans, integers (tiny to
// INT_64), floats, strings, bytes, lists, maps and structures. Decoding turns the graph structures
// into plain classes (Node, Relationship, Path) and temporal and spatial values into ISO strings and
// {srid, x, y} objects; an INT_64 outside JavaScript's safe range stays a bigint. With `intsAsText`
// integers inside a result's values decode as their decimal text, as LangChain's Neo4jGraph hands
// them on.

import { Node, Path, Relationship, plainValue } from "./values";

export { Node, Path, Relationship } from "./values";

const utf8 = new TextEncoder();
const text = new TextDecoder();

/** A Bolt message or any other PackStream structure: a tag byte and its fields. */
export class Structure {
  constructor(
    readonly tag: number,
    readonly fields: unknown[],
  ) {}
}

/** A growing byte buffer. */
export class Writer {
  private buf = new Uint8Array(256);
  private view = new DataView(this.buf.buffer);
  length = 0;

  private room(n: number): number {
    if (this.length + n > this.buf.length) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
      this.view = new DataView(next.buffer);
    }
    const at = this.length;
    this.length += n;
    return at;
  }

  u8(n: number): void {
    const at = this.room(1);
    this.buf[at] = n & 0xff;
  }
  u16(n: number): void {
    const at = this.room(2); // room() may replace the view
    this.view.setUint16(at, n);
  }
  u32(n: number): void {
    const at = this.room(4); // room() may replace the view
    this.view.setUint32(at, n);
  }
  i8(n: number): void {
    const at = this.room(1); // room() may replace the view
    this.view.setInt8(at, n);
  }
  i16(n: number): void {
    const at = this.room(2); // room() may replace the view
    this.view.setInt16(at, n);
  }
  i32(n: number): void {
    const at = this.room(4); // room() may replace the view
    this.view.setInt32(at, n);
  }
  i64(n: bigint): void {
    const at = this.room(8);
    this.view.setBigInt64(at, n);
  }
  f64(n: number): void {
    const at = this.room(8); // room() may replace the view
    this.view.setFloat64(at, n);
  }
  bytes(b: Uint8Array): void {
    const at = this.room(b.length);
    this.buf.set(b, at);
  }
  result(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

/** A size header: tiny (marker + size) when `tiny` is given and size < 16, else the 8/16/32-bit marker. */
function header(w: Writer, size: number, tiny: number | undefined, m8: number): void {
  if (tiny !== undefined && size < 16) w.u8(tiny + size);
  else if (size < 0x100) {
    w.u8(m8);
    w.u8(size);
  } else if (size < 0x10000) {
    w.u8(m8 + 1);
    w.u16(size);
  } else {
    w.u8(m8 + 2);
    w.u32(size);
  }
}

function packInt(w: Writer, value: number | bigint): void {
  if (typeof value === "bigint" && (value < -(2n ** 63n) || value >= 2n ** 63n))
    throw new RangeError(`${value} does not fit a 64-bit integer`);
  const safe = typeof value === "number" || (value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER));
  if (!safe) {
    w.u8(0xcb);
    w.i64(value as bigint);
    return;
  }
  const n = Number(value);
  if (n >= -16 && n < 128) w.u8(n);
  else if (n >= -128 && n < 128) {
    w.u8(0xc8);
    w.i8(n);
  } else if (n >= -32768 && n < 32768) {
    w.u8(0xc9);
    w.i16(n);
  } else if (n >= -(2 ** 31) && n < 2 ** 31) {
    w.u8(0xca);
    w.i32(n);
  } else {
    w.u8(0xcb);
    w.i64(BigInt(n));
  }
}

/** Appends one value. A whole JS number is an INTEGER, any other a FLOAT; undefined is null. */
export function pack(w: Writer, value: unknown): void {
  if (value === null || value === undefined) w.u8(0xc0);
  else if (typeof value === "boolean") w.u8(value ? 0xc3 : 0xc2);
  else if (typeof value === "bigint" || (typeof value === "number" && Number.isSafeInteger(value))) packInt(w, value);
  else if (typeof value === "number") {
    w.u8(0xc1);
    w.f64(value);
  } else if (typeof value === "string") {
    const b = utf8.encode(value);
    header(w, b.length, 0x80, 0xd0);
    w.bytes(b);
  } else if (value instanceof Uint8Array) {
    header(w, value.length, undefined, 0xcc);
    w.bytes(value);
  } else if (value instanceof Structure) {
    if (value.fields.length > 15) throw new RangeError("a structure has at most 15 fields");
    w.u8(0xb0 + value.fields.length);
    w.u8(value.tag);
    for (const f of value.fields) pack(w, f);
  } else if (value instanceof Date) pack(w, value.toISOString());
  else if (Array.isArray(value)) {
    header(w, value.length, 0x90, 0xd4);
    for (const item of value) pack(w, item);
  } else if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    header(w, entries.length, 0xa0, 0xd8);
    for (const [k, v] of entries) {
      pack(w, k);
      pack(w, v);
    }
  } else throw new TypeError(`a ${typeof value} cannot be sent to Neo4j`);
}

// Structure tags (Bolt 4.4 and 5.x).
const NODE = 0x4e;
const REL = 0x52;
const UNBOUND_REL = 0x72;
const PATH = 0x50;
const GRAPH_TAGS = new Set([NODE, REL, UNBOUND_REL, PATH]);
const RECORD = 0x71;

export interface UnpackOptions {
  /** Integers in a RECORD's values (not in the structures' own bookkeeping) as decimal text. */
  intsAsText?: boolean;
}

/** Reads values from one message's bytes. */
export class Unpacker {
  private pos = 0;
  private readonly view: DataView;
  private intsAsText: boolean;

  constructor(
    private readonly bytes: Uint8Array,
    options: UnpackOptions = {},
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.intsAsText = !!options.intsAsText;
  }

  private take(n: number): number {
    if (this.pos + n > this.bytes.length) throw new RangeError("a PackStream value runs past the end of its message");
    const at = this.pos;
    this.pos += n;
    return at;
  }

  private int(n: number | bigint): unknown {
    const v = typeof n === "bigint" && n >= Number.MIN_SAFE_INTEGER && n <= Number.MAX_SAFE_INTEGER ? Number(n) : n;
    return this.intsAsText ? String(v) : v;
  }

  private size(marker: number, base: number): number {
    if (marker === base) return this.view.getUint8(this.take(1));
    if (marker === base + 1) return this.view.getUint16(this.take(2));
    return this.view.getUint32(this.take(4));
  }

  private string(n: number): string {
    const at = this.take(n);
    return text.decode(this.bytes.subarray(at, at + n));
  }

  private list(n: number): unknown[] {
    return Array.from({ length: n }, () => this.unpack());
  }

  private map(n: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      const key = this.unpack();
      out[String(key)] = this.unpack();
    }
    return out;
  }

  private structure(n: number): unknown {
    const tag = this.view.getUint8(this.take(1));
    const saved = this.intsAsText;
    if (!GRAPH_TAGS.has(tag)) this.intsAsText = false; // a Date's day count is not a value of the result
    const fields = this.list(n);
    this.intsAsText = saved;
    return this.hydrate(tag, fields);
  }

  private hydrate(tag: number, f: unknown[]): unknown {
    const props = (v: unknown) => (v ?? {}) as Record<string, unknown>;
    const eid = (v: unknown) => (typeof v === "string" ? v : undefined);
    if (tag === NODE) return new Node(f[1] as string[], props(f[2]), eid(f[3]));
    if (tag === REL) return new Relationship(String(f[3]), props(f[4]), eid(f[5]));
    if (tag === UNBOUND_REL) return new Relationship(String(f[1]), props(f[2]), eid(f[3]));
    if (tag === PATH) {
      // nodes, relationships (unbound), then indices alternating relationship (1-based, negative:
      // traversed backwards) and node, as Bolt lays a path out.
      const nodes = f[0] as Node[];
      const rels = f[1] as Relationship[];
      const seq = (f[2] as unknown[]).map(Number);
      const segments: Path["segments"] = [];
      let last = nodes[0];
      for (let i = 0; i + 1 < seq.length; i += 2) {
        const next = nodes[seq[i + 1]];
        segments.push({ start: last, relationship: rels[Math.abs(seq[i]) - 1], end: next });
        last = next;
      }
      return new Path(nodes[0], segments);
    }
    return plainValue(tag, f);
  }

  /** One Bolt message: a structure whose tag says which (SUCCESS, RECORD, IGNORED, FAILURE). */
  message(): Structure {
    const m = this.view.getUint8(this.take(1));
    if ((m & 0xf0) !== 0xb0) throw new RangeError(`a Bolt message must be a structure (got marker 0x${m.toString(16)})`);
    const tag = this.view.getUint8(this.take(1));
    const saved = this.intsAsText;
    this.intsAsText = saved && tag === RECORD; // metadata (t_first, …) stays numeric
    const fields = this.list(m & 0x0f);
    this.intsAsText = saved;
    return new Structure(tag, fields);
  }

  unpack(): unknown {
    const m = this.view.getUint8(this.take(1));
    if (m < 0x80) return this.int(m);
    if (m >= 0xf0) return this.int(m - 0x100);
    const hi = m & 0xf0;
    if (hi === 0x80) return this.string(m & 0x0f);
    if (hi === 0x90) return this.list(m & 0x0f);
    if (hi === 0xa0) return this.map(m & 0x0f);
    if (hi === 0xb0) return this.structure(m & 0x0f);
    switch (m) {
      case 0xc0:
        return null;
      case 0xc1:
        return this.view.getFloat64(this.take(8));
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xc8:
        return this.int(this.view.getInt8(this.take(1)));
      case 0xc9:
        return this.int(this.view.getInt16(this.take(2)));
      case 0xca:
        return this.int(this.view.getInt32(this.take(4)));
      case 0xcb:
        return this.int(this.view.getBigInt64(this.take(8)));
      case 0xcc:
      case 0xcd:
      case 0xce: {
        const n = this.size(m, 0xcc);
        const at = this.take(n);
        return this.bytes.slice(at, at + n);
      }
      case 0xd0:
      case 0xd1:
      case 0xd2:
        return this.string(this.size(m, 0xd0));
      case 0xd4:
      case 0xd5:
      case 0xd6:
        return this.list(this.size(m, 0xd4));
      case 0xd8:
      case 0xd9:
      case 0xda:
        return this.map(this.size(m, 0xd8));
    }
    throw new RangeError(`unknown PackStream marker 0x${m.toString(16)}`);
  }
}
