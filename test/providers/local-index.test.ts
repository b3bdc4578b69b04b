import { describe, expect, it } from "vitest";
import { NamespaceCache, type LoadedNamespace, allocateNamespace, topK, unitQuery } from "../../src/providers/vectorstores/local-index";

/** A namespace of n random int8 rows of `dims` (a seeded generator: the same rows every run). */
function namespace(n: number, dims: number, seed = 7): LoadedNamespace {
  let x = seed;
  const rand = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296;
  const ns = allocateNamespace("s", dims, n);
  for (let v = 0; v < n; v++) {
    ns.ids.push(`v${v}`);
    ns.scales[v] = 0.001 + rand() / 100;
    for (let i = 0; i < dims; i++) ns.codes[v * ns.stride + i] = Math.round(rand() * 254 - 127);
  }
  return ns;
}

/** The straightforward ranking: every score, sorted. */
function reference(ns: LoadedNamespace, q: Float64Array, k: number) {
  const scores = ns.ids.map((id, v) => {
    let dot = 0;
    for (let i = 0; i < ns.dims; i++) dot += ns.codes[v * ns.stride + i] * q[i];
    return { id, score: dot * ns.scales[v] };
  });
  return scores.sort((a, b) => b.score - a.score).slice(0, k);
}

describe("local vector index: top k", () => {
  it("ranks as the straightforward scan does, for sizes that are not multiples of 16 dimensions or a block of rows", async () => {
    for (const [n, dims, k] of [
      [3000, 256, 4],
      [777, 7, 10],
      [3, 5, 10],
      [2100, 1, 1],
      [300, 4096, 3],
    ] as const) {
      const ns = namespace(n, dims);
      const q = unitQuery(Array.from({ length: dims }, (_, i) => Math.sin(i + 1)));
      const got = await topK(ns, q, k);
      const want = reference(ns, q, k);
      expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id));
      // The kernel takes the query as int16: scores agree to about 1e-4 of the largest.
      got.forEach((h, i) => expect(Math.abs(h.score - want[i].score)).toBeLessThan(1e-4 * Math.abs(want[0].score)));
    }
  });

  it("keeps int32 lanes from overflowing at 4,096 dimensions of extreme values", async () => {
    const dims = 4096;
    const ns = allocateNamespace("s", dims, 2);
    ns.ids.push("max", "min");
    ns.scales.set([1 / 127 / 64, 1 / 127 / 64]); // unit rows: every value ±1/64
    for (let i = 0; i < dims; i++) {
      ns.codes[i] = 127;
      ns.codes[ns.stride + i] = -127;
    }
    const hits = await topK(ns, unitQuery(new Array(dims).fill(1)), 2);
    expect(hits.map((h) => h.id)).toEqual(["max", "min"]);
    expect(hits[0].score).toBeCloseTo(1, 3);
    expect(hits[1].score).toBeCloseTo(-1, 3);
  });

  it("answers nothing for an empty namespace and at least one hit for k < 1", async () => {
    expect(await topK(namespace(0, 8), unitQuery([1, 0, 0, 0, 0, 0, 0, 0]), 4)).toEqual([]);
    expect(await topK(namespace(10, 8), unitQuery([1, 0, 0, 0, 0, 0, 0, 0]), 0)).toHaveLength(1);
  });
});

describe("local vector index: namespace cache", () => {
  it("keeps namespaces within its byte budget, least recently used out first, and drops only the data it was given", () => {
    const a = namespace(10, 100),
      b = namespace(10, 100),
      c = namespace(10, 100);
    const cache = new NamespaceCache(2 * (65_536 + 80 + 480)); // two of these (one memory page each)
    cache.set("a", a);
    cache.set("b", b);
    expect(cache.get("a", 100)).toBe(a); // a is now the most recent
    cache.set("c", c);
    expect(cache.get("b", 100)).toBeUndefined();
    expect(cache.get("a", 100)).toBe(a);
    expect(cache.get("a", 99)).toBeUndefined(); // another embedding size
    cache.drop("a", b); // a newer load replaced what this caller saw: kept
    expect(cache.get("a", 100)).toBe(a);
    cache.drop("a", a);
    expect(cache.get("a", 100)).toBeUndefined();
  });
});
