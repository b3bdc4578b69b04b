// Condition: if / else-if over `conditions` rows {type: string|number|boolean, value1, operation,
// value2}; the first true row is fulfilled, and an Else entry is appended (fulfilled when none
// was). Branch `-output-i` is row i, `-output-n` is Else. Strings lose their Markdown before they
// are compared; numbers are parseFloat (NaN → 0).
import { fail } from "../../../errors";
import type { AgentflowNodeDef } from "../node-types";
import { isObject, listOf } from "../util";
import { ownerOf } from "./common";

type Value = string | number | boolean | undefined | null;

/** Markdown marks removed, as remove-markdown does for the comparisons. */
function stripMarkdown(text: string): string {
  return text
    .replace(/^```[^\n]*\n?|```$/gm, "")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/^\s{0,3}#{1,6}\s+/gm, "")
    .replace(/^\s{0,3}>\s?/gm, "")
    .replace(/^\s*(?:[-*+]|\d+\.)\s+/gm, "")
    .replace(/(\*\*|__)(.*?)\1/g, "$2")
    .replace(/(\*|_)(.*?)\1/g, "$2")
    .replace(/~~(.*?)~~/g, "$1")
    .replace(/`([^`]*)`/g, "$1");
}

const unescapeRegex = (escaped: string) =>
  escaped
    .replace(/\\\\/g, "\0")
    .replace(/\\([[\]*])/g, "$1")
    .replace(/\0/g, "\\");

const text = (v: Value) => (v === undefined || v === null ? "" : String(v));
const number = (v: Value) => Number(v) || 0;

const OPERATIONS: Record<string, (a: Value, b: Value) => boolean> = {
  contains: (a, b) => text(a).includes(text(b)),
  notContains: (a, b) => !text(a).includes(text(b)),
  startsWith: (a, b) => text(a).startsWith(text(b)),
  endsWith: (a, b) => text(a).endsWith(text(b)),
  equal: (a, b) => a === b,
  notEqual: (a, b) => a !== b,
  larger: (a, b) => number(a) > number(b),
  largerEqual: (a, b) => number(a) >= number(b),
  smaller: (a, b) => number(a) < number(b),
  smallerEqual: (a, b) => number(a) <= number(b),
  regex: (a, b) => {
    try {
      return new RegExp(unescapeRegex(text(b))).test(text(a));
    } catch {
      return false;
    }
  },
  isEmpty: (a) => a === undefined || a === null || a === "",
  notEmpty: (a) => !(a === undefined || a === null || a === ""),
};

function operands(type: unknown, v1: unknown, v2: unknown): [Value, Value] {
  if (type === "number") return [parseFloat(String(v1 ?? "")) || 0, parseFloat(String(v2 ?? "")) || 0];
  if (type === "boolean") return [v1 as Value, v2 as Value];
  const s = (v: unknown) => stripMarkdown(typeof v === "string" ? v : v === undefined || v === null ? "" : String(v));
  return [s(v1), s(v2)];
}

export const conditionNode: AgentflowNodeDef = {
  name: "conditionAgentflow",
  variableParams: ["conditions"],
  branches: (inputs) => listOf(inputs.conditions).filter(isObject).length + 1, // the rows, then Else
  async run({ node, inputs, rt }) {
    const rows = listOf(inputs.conditions).filter(isObject);
    const initial = rows.map((r) => ({ ...r }));
    const conditions: Array<Record<string, unknown>> = rows.map((r) => ({ ...r }));
    let fulfilled = false;
    for (const [i, row] of rows.entries()) {
      const operation = typeof row.operation === "string" ? row.operation : "";
      const compare = OPERATIONS[operation];
      if (!compare)
        throw fail(
          "INVALID_FLOW",
          `${ownerOf(node)}: condition #${i + 1} has an unknown operation "${operation}" (one of ${Object.keys(OPERATIONS).join(", ")})`,
        );
      if (compare(...operands(row.type, row.value1, row.value2))) {
        conditions[i] = { ...row, isFulfilled: true };
        fulfilled = true;
        break;
      }
    }
    conditions.push({ type: "string", value1: "", operation: "equal", value2: "", isFulfilled: !fulfilled });
    return { id: node.id, name: node.data.name, input: { conditions: initial }, output: { conditions }, state: rt.state };
  },
};
