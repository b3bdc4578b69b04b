// Flowise's supabaseRPCFilter: query-builder calls applied to the match function's call, e.g.
//   filter("metadata->a::int", "gt", 5).filter("metadata->>stuff", "eq", "right");
// read here without running anything: each filter(column, operator, value) becomes PostgREST's
// `column=operator.value` query parameter, as supabase-js's filter() adds it. Flowise's allowed
// operators; its other methods (order, limit, range, …) are refused as not supported here.
import { fail } from "../../../errors";

const OPERATORS = new Set("eq neq gt gte lt lte like ilike is in cs cd sl sr nxl nxr adj ov fts plfts phfts wfts".split(" "));
const FIELD = "supabase supabaseRPCFilter";
/** One argument: a quoted string, a number, true/false/null, or a flat list of those. */
const SCALAR = String.raw`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|-?\d+(?:\.\d+)?|true|false|null`;
const ARG = new RegExp(String.raw`\s*(${SCALAR}|\[(?:\s*(?:${SCALAR})\s*,?)*\])\s*`, "y");

function scalar(token: string): string {
  if (/^["']/.test(token)) return token.slice(1, -1).replace(/\\(.)/g, "$1");
  return token;
}

function value(token: string): string {
  if (token.startsWith("[")) {
    const items = [...token.slice(1, -1).matchAll(new RegExp(SCALAR, "g"))].map((m) => scalar(m[0]));
    return `(${items.join(",")})`;
  }
  return scalar(token);
}

/** The query-string filters of a supabaseRPCFilter (400 naming it when it cannot be read). */
export function rpcFilterParams(text: string): URLSearchParams {
  const source = text
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/\/\/.*$/gm, "")
    .trim()
    .replace(/;\s*$/, "");
  const params = new URLSearchParams();
  let at = 0;
  const call = /\s*\.?\s*(\w+)\s*\(/y;
  while (at < source.length) {
    call.lastIndex = at;
    const head = call.exec(source);
    if (!head) throw fail("INVALID_FLOW", `${FIELD}: expected filter("column", "operator", value) at "${source.slice(at, at + 30)}"`);
    if (head[1] !== "filter")
      throw fail("INVALID_FLOW", `${FIELD}: only filter(column, operator, value) is supported here, not ${head[1]}()`);
    at = call.lastIndex;
    const args: string[] = [];
    for (;;) {
      ARG.lastIndex = at;
      const arg = ARG.exec(source);
      if (!arg) break;
      args.push(arg[1]);
      at = ARG.lastIndex;
      if (source[at] === ",") at++;
      else break;
    }
    if (source[at] !== ")") throw fail("INVALID_FLOW", `${FIELD}: a filter( … ) call is not closed or has an unreadable argument`);
    at++;
    if (args.length !== 3) throw fail("INVALID_FLOW", `${FIELD}: filter takes a column, an operator and a value`);
    const [column, operator] = args.map(scalar);
    if (!OPERATORS.has(operator)) throw fail("INVALID_FLOW", `${FIELD}: operator "${operator}" is not allowed`);
    params.append(column, `${operator}.${value(args[2])}`);
    at = source.slice(at).search(/\S|$/) + at;
  }
  if (![...params.keys()].length) throw fail("INVALID_FLOW", `${FIELD}: no filter( … ) call found`);
  return params;
}
