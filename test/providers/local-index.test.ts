import { describe, expect, it } from "vitest";
import { NamespaceCache, type LoadedNamespace, topK, unitQuery } from "../../src/providers/vectorstores/local-index";

/** A namespace of n random int8 rows of `dims` (a seeded generator: the same rows every run). */
function namespace(n: number, dims: number, seed = 7): LoadedNamespace {
  let x = seed;
  const rand = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296);
  const codes = new Int8Array(n * dims).map(() => Math.round(rand() * 254 - 127));
  const scales = new Float64Array(n).map(() => 0.001 + rand() / 100);
  return { stamp: "s", dims, ids: Array.from({ length: n }, (_, i) => `v${i}`), scales, codes };
}

/** The straightforward ranking: every score, sorted. */
function reference(ns: LoadedNamespace, q: Float64Array, k: number) {
  const scores = ns.ids.map((id, v) => {
    let dot = 0;
    for (let i = 0; i < ns.dims; i++) dot += ns.codes[v * ns.dims + i] * q[i];
    return { id, score: dot * ns.scales[v] };
  });
  return scores.sort((a, b) => b.score - a.score).slice(0, k);
}

describe("local vector index: top k", () => {
  it("ranks as the straightforward scan does, for sizes that are not multiples of the unrolling or block", async () => {
    for (const [n, dims, k] of [[1000, 256, 4], [777, 7, 10], [3, 5, 10], [600, 1, 1]] as const) {
      const ns = namespace(n, dims);
      const q = unitQuery(Array.from({ length: dims }, (_, i) => Math.sin(i + 1)));
      const got = await topK(ns, q, k);
      const want = reference(ns, q, k);
      expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id));
      got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i].score, 9));
    }
  });

  it("answers nothing for an empty namespace and at least one hit for k < 1", async () => {
    expect(await topK(namespace(0, 8), unitQuery([1, 0, 0, 0, 0, 0, 0, 0]), 4)).toEqual([]);
    expect(await topK(namespace(10, 8), unitQuery([1, 0, 0, 0, 0, 0, 0, 0]), 0)).toHaveLength(1);
  });
});

describe("local vector index: namespace cache", () => {
  it("keeps namespaces within its byte budget, least recently used out first, and drops only the data it was given", () => {
    const a = namespace(10, 100), b = namespace(10, 100), c = namespace(10, 100);
    const cache = new NamespaceCache(2 * (1000 + 80 + 480)); // two of these
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
