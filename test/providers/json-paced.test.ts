// parseJsonPaced answers what JSON.parse does, for documents read whole (up to 64 KB) and for
// larger ones taken apart member by member: same values, same key order ("__proto__" an own
// property, a repeated key's last value in its first place), the same refusals, and nesting held
// to MAX_JSON_DEPTH both inside a piece and across pieces.
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../src/lib/json-depth";
import { JsonSyntaxError, JsonTooDeep, parseJsonPaced } from "../../src/providers/loaders/json-paced";

const range = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));
/** A string long enough that the member holding it is more than a piece. */
const PAD = "p".repeat(70_000);

async function same(text: string) {
  const got = await parseJsonPaced(text);
  expect(got).toEqual(JSON.parse(text));
  expect(JSON.stringify(got)).toBe(JSON.stringify(JSON.parse(text))); // key order too
}

async function refusal(text: string): Promise<unknown> {
  expect(() => JSON.parse(text)).toThrow();
  return parseJsonPaced(text).then(
    () => "parsed",
    (err: unknown) => err,
  );
}

describe("parseJsonPaced", () => {
  it("answers what JSON.parse answers, small and large, compact and indented", async () => {
    const docs: unknown[] = [
      0,
      -1.5e-7,
      "x",
      null,
      true,
      [],
      {},
      { a: [1, { b: 'c\\"d', e: "\u00e9 \ud83d\udea2 \\u0041" }] },
      range(60_000, (i) => i / 3),
      range(20_000, (i) => ({ [`k${i}`]: `v "${i}" \\`, n: [i, -i, 1e21], z: null, t: i % 2 === 0 })),
      { head: "h", rows: range(10_000, (i) => ({ id: i, text: "t".repeat(i % 200) })), tail: [PAD, [PAD], { p: PAD }] },
      { 2: "two", 1: "one", b: range(10_000, String), a: PAD },
      range(3, () => range(12_000, (i) => [i, { d: [[[i]]] }])),
      "s".repeat(200_000),
    ];
    for (const d of docs) {
      await same(JSON.stringify(d));
      await same(JSON.stringify(d, null, 2));
    }
  }, 60_000);

  it("keeps __proto__ an own property and a repeated key's last value in its first place", async () => {
    await same(`{"a":1,"pad":${JSON.stringify(PAD)},"b":2,"a":3}`);
    const proto = (await parseJsonPaced(`{"__proto__":{"polluted":1},"pad":[${range(20_000, (i) => i).join(",")}]}`)) as object;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto)).toEqual(["__proto__", "pad"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses what JSON.parse refuses, naming the place", async () => {
    const numbers = range(30_000, (i) => i).join(",");
    for (const bad of [
      "",
      "[1,2",
      `[${numbers},]`,
      `{"a":1 "b":2}`,
      `[${numbers}] x`,
      `{"a":[${numbers}],}`,
      `["${PAD}`,
      `{"a":[${numbers}] "b":1}`,
    ]) {
      expect(await refusal(bad), bad.slice(0, 30)).toBeInstanceOf(JsonSyntaxError);
    }
    expect(((await refusal(`[${numbers}] x`)) as Error).message).toBe(`Unexpected character "x" at position ${numbers.length + 3}`);
  });

  it(`holds nesting to ${MAX_JSON_DEPTH} levels, inside a piece and across pieces`, async () => {
    const nest = (levels: number, inner: string) => "[".repeat(levels) + inner + "]".repeat(levels);
    await same(nest(MAX_JSON_DEPTH, "1"));
    expect(await parseJsonPaced(nest(MAX_JSON_DEPTH + 1, "1")).catch((e) => e)).toBeInstanceOf(JsonTooDeep);
    // Each level larger than a piece: read level by level.
    const padded = (levels: number) => `${"[".repeat(levels)}${JSON.stringify(PAD)}${"]".repeat(levels)}`;
    expect(JSON.stringify(await parseJsonPaced(padded(MAX_JSON_DEPTH)))).toBe(padded(MAX_JSON_DEPTH));
    expect(await parseJsonPaced(padded(MAX_JSON_DEPTH + 1)).catch((e) => e)).toBeInstanceOf(JsonTooDeep);
    // Deep inside one piece of a large document.
    expect(await parseJsonPaced(`[${JSON.stringify(PAD)},${nest(MAX_JSON_DEPTH, "1")}]`).catch((e) => e)).toBeInstanceOf(JsonTooDeep);
    await same(`[${JSON.stringify(PAD)},${nest(MAX_JSON_DEPTH - 1, "1")}]`);
  }, 60_000);
});
