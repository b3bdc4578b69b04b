// JSON.parse copes with any nesting, but the code that walks the result recurses (loaders, the
// engine's input resolution, JSON.stringify): a value nested 100k deep overflows the stack and
// became a 500. Input is checked once where it enters, without recursion, and refused with a 400.

/** The deepest nesting of arrays and objects accepted in a JSON input (real flows use a few dozen). */
export const MAX_JSON_DEPTH = 1000;

/** Whether `value` nests arrays/objects more than `max` levels deep; iterative, stops at the first. */
export function jsonTooDeep(value: unknown, max = MAX_JSON_DEPTH): boolean {
  if (!value || typeof value !== "object") return false;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v as object)) {
      if (child && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** The message of a 400 for input nested too deeply: `what` nests deeper than the limit. */
export const tooDeepMessage = (what: string) => `${what} nests deeper than ${MAX_JSON_DEPTH} levels`;
