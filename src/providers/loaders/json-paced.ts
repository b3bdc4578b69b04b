// JSON read without holding the isolate. JSON.parse takes a whole text in one go: 10 MB
// (MAX_TEXT_MB) took it 0.1-0.5 s here, and walking what it made as long again. parseJsonPaced takes
// a document apart instead: a value written in at most PIECE characters goes to JSON.parse whole;
// a larger array or object is read a member at a time (brackets, keys and commas by hand, each
// member the same way), yielding between pieces. What it answers is what JSON.parse would, and so
// are its refusals (with the position in the whole text). Arrays and objects nested deeper than
// MAX_JSON_DEPTH are a 400 (the walks after it recurse), found while reading or in the pieces.
import { fail } from "../../errors";
import { MAX_JSON_DEPTH, jsonTooDeep } from "../../lib/json-depth";
import { Pacer } from "../../lib/pace";

/** Characters given to JSON.parse at once, and scanned between yields. */
const PIECE = 64 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isOpen = (c: number) => c === 0x7b || c === 0x5b; // { [
const isClose = (c: number) => c === 0x7d || c === 0x5d; // } ]
/** Where a number or literal ends: whitespace, a comma, a closing bracket or a colon. */
const endsPrimitive = (c: number) => isSpace(c) || c === 0x2c || isClose(c) || c === 0x3a;

export class JsonSyntaxError extends Error {}
/** Thrown for nesting deeper than MAX_JSON_DEPTH. */
export class JsonTooDeep extends Error {}

class Reader {
  private readonly pacer = new Pacer(8);
  constructor(private readonly text: string) {}

  /** The index after `at`'s whitespace. */
  skip(at: number): number {
    while (at < this.text.length && isSpace(this.text.charCodeAt(at))) at++;
    return at;
  }

  fail(at: number): never {
    if (at >= this.text.length) throw new JsonSyntaxError("Unexpected end of JSON input");
    throw new JsonSyntaxError(`Unexpected character ${JSON.stringify(this.text[at])} at position ${at}`);
  }

  /** The end of the string starting at `at` (its opening quote). */
  stringEnd(at: number): number {
    for (let q = this.text.indexOf('"', at + 1); q >= 0; q = this.text.indexOf('"', q + 1)) {
      let slashes = 0;
      while (this.text.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
      if (slashes % 2 === 0) return q + 1;
    }
    return this.fail(this.text.length);
  }

  /** The end of the value at `at` when it is written within PIECE characters, else -1. */
  endWithin(at: number): number {
    const c = this.text.charCodeAt(at);
    if (c === QUOTE) return this.stringEnd(at);
    if (!isOpen(c)) {
      let end = at;
      while (end < this.text.length && !endsPrimitive(this.text.charCodeAt(end))) end++;
      return end;
    }
    const stop = Math.min(this.text.length, at + PIECE);
    let depth = 0;
    for (let i = at; i < stop; i++) {
      const d = this.text.charCodeAt(i);
      if (d === QUOTE) {
        i = this.stringEnd(i) - 1;
      } else if (isOpen(d)) depth++;
      else if (isClose(d) && --depth === 0) return i + 1;
    }
    return -1;
  }

  /** JSON.parse of text[at, end), its errors placed in the whole text. */
  whole(at: number, end: number): unknown {
    try {
      return JSON.parse(this.text.slice(at, end));
    } catch (err) {
      throw new JsonSyntaxError(`${err instanceof Error ? err.message : String(err)} (in the value at position ${at})`);
    }
  }

  /** Counts `chars` of work done; yields when a slice's worth has been done. */
  private async done(chars: number): Promise<void> {
    const wait = this.pacer.tick(chars / PIECE);
    if (wait) await wait;
  }

  /** JSON.parse of a piece that `depth` arrays/objects enclose, its nesting checked against the limit. */
  private piece(at: number, end: number, depth: number, wrap = ""): unknown {
    const v = wrap ? this.wrapped(at, end, wrap) : this.whole(at, end);
    if (jsonTooDeep(v, MAX_JSON_DEPTH - depth)) throw new JsonTooDeep();
    return v;
  }

  /** Members text[at, end) of an array (`[]`) or object (`{}`), parsed as one. */
  private wrapped(at: number, end: number, wrap: string): unknown {
    try {
      return JSON.parse(wrap[0] + this.text.slice(at, end) + wrap[1]);
    } catch (err) {
      throw new JsonSyntaxError(`${err instanceof Error ? err.message : String(err)} (in the members from position ${at})`);
    }
  }

  /** The value at `at` (after whitespace) and where it ends; `depth` arrays/objects enclose it. */
  async value(at: number, depth: number): Promise<[unknown, number]> {
    at = this.skip(at);
    if (at >= this.text.length) this.fail(at);
    const end = this.endWithin(at);
    if (end >= 0) {
      const v = this.piece(at, end, depth);
      await this.done(end - at);
      return [v, end];
    }
    if (depth + 1 > MAX_JSON_DEPTH) throw new JsonTooDeep();
    await this.done(PIECE);
    return this.container(at, depth + 1);
  }

  /**
   * The array or object opening at `at`, at nesting `depth`: members written within PIECE
   * characters are parsed in runs of up to PIECE characters, larger ones one by one.
   */
  private async container(at: number, depth: number): Promise<[unknown, number]> {
    const isArray = this.text.charCodeAt(at) === 0x5b;
    const close = isArray ? "]" : "}";
    const wrap = isArray ? "[]" : "{}";
    const out: unknown[] | Record<string, unknown> = isArray ? [] : {};
    const add = (key: string | number, v: unknown) => {
      if (Array.isArray(out)) out.push(v);
      // As JSON.parse makes it: an own property, "__proto__" included; a repeated key keeps its place.
      else Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    };
    const addRun = (from: number, to: number) => {
      const run = this.piece(from, to, depth - 1, wrap);
      if (Array.isArray(run)) for (const v of run) add(0, v);
      else for (const [k, v] of Object.entries(run as object)) add(k, v);
    };
    at = this.skip(at + 1);
    if (this.text[at] === close) return [out, at + 1];
    let run = at; // where the run of small members not yet parsed starts
    for (;;) {
      const member = at;
      let keyEnd = at;
      if (!isArray) {
        if (this.text.charCodeAt(at) !== QUOTE) this.fail(at);
        keyEnd = this.stringEnd(at);
        at = this.skip(keyEnd);
        if (this.text[at] !== ":") this.fail(at);
        at = this.skip(at + 1);
      }
      if (at >= this.text.length) this.fail(at);
      const end = this.endWithin(at);
      if (end < 0) {
        // A large member: the run before it, then it alone.
        if (member > run) addRun(run, this.text.lastIndexOf(",", member));
        const key = isArray ? 0 : (this.whole(member, keyEnd) as string);
        const [v, after] = await this.value(at, depth);
        add(key, v);
        at = after;
      } else at = end;
      at = this.skip(at);
      const last = this.text[at] === close;
      if (!last && this.text[at] !== ",") this.fail(at);
      if (end < 0) run = at + 1;
      else if (last || at - run >= PIECE) {
        addRun(run, at);
        await this.done(at - run);
        run = at + 1;
      }
      if (last) return [out, at + 1];
      at = this.skip(at + 1);
    }
  }
}

/**
 * What JSON.parse(text) answers, read a piece at a time. A JsonSyntaxError for text that is not
 * JSON; a JsonTooDeep for nesting deeper than MAX_JSON_DEPTH.
 */
export async function parseJsonPaced(text: string): Promise<unknown> {
  const reader = new Reader(text);
  const [value, end] = await reader.value(0, 0);
  if (reader.skip(end) < text.length) reader.fail(reader.skip(end));
  return value;
}

/** A 400 for what parseJsonPaced refused in `what` (other errors pass). */
export function jsonRefusal(err: unknown, what: string, tooDeep: string): unknown {
  if (err instanceof JsonTooDeep) return fail("INVALID_INPUT", tooDeep);
  if (err instanceof JsonSyntaxError) return fail("INVALID_INPUT", `${what} is not valid JSON: ${err.message}`);
  return err;
}
