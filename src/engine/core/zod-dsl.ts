// A safe reader for the zod schema code that Flowise's Advanced Structured Output Parser takes,
// e.g. `z.array(z.object({ title: z.string(), // comment\n year: z.number().int() }))`.
// Workers cannot eval, and should not: this parses a small expression language (z.<fn>(…) calls,
// chained whitelisted methods, string/number/boolean/null literals, arrays, object literals,
// comments) and builds the schema with zod itself, so validation and JSON Schema come from zod.
import { z } from "zod";
import { errorMessage } from "../../lib/error-message";

type Value = unknown;

const ROOT = new Set([
  "object",
  "array",
  "string",
  "number",
  "boolean",
  "enum",
  "literal",
  "optional",
  "nullable",
  "union",
  "any",
  "unknown",
  "record",
  "tuple",
  "null",
  "int",
]);
const METHODS = new Set([
  "optional",
  "nullable",
  "nullish",
  "describe",
  "int",
  "min",
  "max",
  "length",
  "array",
  "default",
  "positive",
  "negative",
  "nonnegative",
  "nonpositive",
  "nonempty",
  "email",
  "url",
  "uuid",
  "trim",
  "strict",
  "passthrough",
  "partial",
  "finite",
  "gt",
  "gte",
  "lt",
  "lte",
  "multipleOf",
  "startsWith",
  "endsWith",
  "includes",
  "or",
  "datetime",
  "catchall",
  "step",
]);

export class ZodDslError extends Error {}

type Token =
  | { t: "id"; v: string; at: number }
  | { t: "str"; v: string; at: number }
  | { t: "num"; v: number; at: number }
  | { t: "punct"; v: string; at: number }
  | { t: "end"; at: number };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
    } else if (src.startsWith("//", i)) {
      const nl = src.indexOf("\n", i);
      i = nl < 0 ? src.length : nl + 1;
    } else if (src.startsWith("/*", i)) {
      const end = src.indexOf("*/", i + 2);
      if (end < 0) throw new ZodDslError(`unclosed comment at ${where(src, i)}`);
      i = end + 2;
    } else if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][\w$]*/.exec(src.slice(i))!;
      out.push({ t: "id", v: m[0], at: i });
      i += m[0].length;
    } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(src[i + 1] ?? ""))) {
      const m = /^(?:0[xX][0-9a-fA-F]+|(?:\d[\d_]*)?\.?\d*(?:[eE][+-]?\d+)?)/.exec(src.slice(i))!;
      out.push({ t: "num", v: Number(m[0].replace(/_/g, "")), at: i });
      i += m[0].length;
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      let s = "";
      while (j < src.length && src[j] !== c) {
        if (src[j] === "\\") {
          const n = src[j + 1];
          s += n === "n" ? "\n" : n === "t" ? "\t" : n === "r" ? "\r" : n;
          j += 2;
        } else {
          if (c === "`" && src.startsWith("${", j)) throw new ZodDslError(`template expressions are not supported at ${where(src, j)}`);
          s += src[j++];
        }
      }
      if (j >= src.length) throw new ZodDslError(`unclosed string at ${where(src, i)}`);
      out.push({ t: "str", v: s, at: i });
      i = j + 1;
    } else if ("()[]{},.:;-".includes(c)) {
      out.push({ t: "punct", v: c, at: i });
      i++;
    } else {
      throw new ZodDslError(`unexpected character '${c}' at ${where(src, i)}`);
    }
  }
  out.push({ t: "end", at: src.length });
  return out;
}

function where(src: string, at: number): string {
  const before = src.slice(0, at);
  const line = before.split("\n").length;
  const col = at - before.lastIndexOf("\n");
  return `line ${line}, column ${col}`;
}

const isSchema = (v: unknown): v is z.ZodType => v instanceof z.ZodType;

/** Parses zod schema code into a zod schema. Throws ZodDslError saying where it stopped. */
export function parseZodDsl(source: string): z.ZodType {
  const src = source.trim().replace(/;\s*$/, "");
  const tokens = tokenize(src);
  let pos = 0;
  const peek = () => tokens[pos];
  const fail = (msg: string, tok = peek()): never => {
    throw new ZodDslError(`${msg} at ${where(src, tok.at)}`);
  };
  const punct = (v: string) => {
    const tok = peek();
    if (tok.t !== "punct" || tok.v !== v) fail(`expected '${v}'`);
    pos++;
  };
  const isPunct = (v: string) => {
    const tok = peek();
    return tok.t === "punct" && tok.v === v;
  };

  const list = (close: string): Value[] => {
    const items: Value[] = [];
    while (!isPunct(close)) {
      items.push(expr());
      if (isPunct(",")) pos++;
      else if (!isPunct(close)) fail(`expected ',' or '${close}'`);
    }
    pos++;
    return items;
  };

  const objectLiteral = (): Record<string, Value> => {
    const obj: Record<string, Value> = {};
    while (!isPunct("}")) {
      const key = peek();
      if (key.t !== "id" && key.t !== "str") fail("expected a property name");
      pos++;
      punct(":");
      obj[String((key as { v: unknown }).v)] = expr();
      if (isPunct(",")) pos++;
      else if (!isPunct("}")) fail("expected ',' or '}'");
    }
    pos++;
    return obj;
  };

  const call = (target: Value, name: string, tok: Token): Value => {
    punct("(");
    const args = list(")");
    for (const a of args) {
      if (typeof a === "function") fail("functions are not allowed as arguments", tok);
    }
    if (target === z) {
      if (!ROOT.has(name)) fail(`z.${name}() is not supported (supported: ${[...ROOT].join(", ")})`, tok);
      if (name === "object" && !(args[0] && typeof args[0] === "object" && !isSchema(args[0])))
        fail("z.object() needs an object of fields", tok);
      if (name === "object") {
        for (const [k, v] of Object.entries(args[0] as object)) if (!isSchema(v)) fail(`field ${k} of z.object() is not a schema`, tok);
      }
      if ((name === "array" || name === "optional" || name === "nullable") && !isSchema(args[0])) fail(`z.${name}() needs a schema`, tok);
      if (name === "enum" && !(Array.isArray(args[0]) && args[0].length && args[0].every((v) => typeof v === "string")))
        fail("z.enum() needs a list of strings", tok);
      if (name === "union" && !(Array.isArray(args[0]) && args[0].every(isSchema))) fail("z.union() needs a list of schemas", tok);
      if (name === "tuple" && !(Array.isArray(args[0]) && args[0].every(isSchema))) fail("z.tuple() needs a list of schemas", tok);
      if (name === "record" && !args.every(isSchema)) fail("z.record() needs schemas", tok);
      if (name === "record" && args.length === 1) args.unshift(z.string());
      const fn = (z as unknown as Record<string, (...a: unknown[]) => unknown>)[name];
      return fn(...args);
    }
    if (!isSchema(target)) fail(`.${name}() can only follow a schema`, tok);
    if (!METHODS.has(name)) fail(`.${name}() is not supported`, tok);
    const method = (target as unknown as Record<string, unknown>)[name];
    if (typeof method !== "function") fail(`.${name}() does not apply to this schema`, tok);
    if (name === "or" && !isSchema(args[0])) fail(".or() needs a schema", tok);
    try {
      return (method as (...a: unknown[]) => unknown).apply(target, args);
    } catch (err) {
      return fail(`.${name}() failed: ${errorMessage(err)}`, tok);
    }
  };

  const primary = (): Value => {
    const tok = peek();
    if (tok.t === "str" || tok.t === "num") {
      pos++;
      return tok.v;
    }
    if (tok.t === "punct" && tok.v === "-") {
      pos++;
      const n = peek();
      if (n.t !== "num") fail("expected a number after '-'");
      pos++;
      return -(n as { v: number }).v;
    }
    if (tok.t === "punct" && tok.v === "[") {
      pos++;
      return list("]");
    }
    if (tok.t === "punct" && tok.v === "{") {
      pos++;
      return objectLiteral();
    }
    if (tok.t === "punct" && tok.v === "(") {
      pos++;
      const inner = expr();
      punct(")");
      return inner;
    }
    if (tok.t === "id") {
      pos++;
      if (tok.v === "true") return true;
      if (tok.v === "false") return false;
      if (tok.v === "null") return null;
      if (tok.v === "undefined") return undefined;
      if (tok.v === "z") return z;
      fail(`unknown name '${tok.v}' (only z.* is available)`, tok);
    }
    return fail("expected a value");
  };

  function expr(): Value {
    let value = primary();
    while (isPunct(".")) {
      pos++;
      const name = peek();
      if (name.t !== "id") fail("expected a method name");
      pos++;
      if (!isPunct("(")) fail(`expected '(' after .${(name as { v: string }).v}`);
      value = call(value, (name as { v: string }).v, name);
    }
    if (value === z) fail("z alone is not a schema");
    return value;
  }

  const schema = expr();
  if (peek().t !== "end") fail("unexpected text after the schema");
  if (!isSchema(schema)) throw new ZodDslError("the code does not describe a zod schema");
  return schema;
}

/** The JSON Schema of a zod schema, for the model's format instructions. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { unrepresentable: "any" }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}
