// The local vector store's read side in memory: decoded namespaces kept per isolate, and the
// top-k scan over their int8 codes. Nothing here touches D1; local.ts loads and validates.
import { Pacer } from "../../lib/pace";

/** A namespace's vectors as of `stamp` (its version token when they were read). */
export interface LoadedNamespace {
  stamp: string;
  dims: number;
  ids: string[];
  scales: Float64Array;
  codes: Int8Array;
}

export interface Hit {
  id: string;
  score: number;
}

/**
 * Decoded namespaces kept by this isolate between queries. An entry may be stale: the caller
 * checks its stamp against D1 in the same read that fetches the hits' text, and drops it on a
 * mismatch. Bounded in bytes; the least recently used namespace goes first.
 */
export class NamespaceCache {
  private readonly entries = new Map<string, { data: LoadedNamespace; bytes: number }>();
  private bytes = 0;
  constructor(private readonly budget: number) {}

  get(namespace: string, dims: number): LoadedNamespace | undefined {
    const entry = this.entries.get(namespace);
    if (!entry || entry.data.dims !== dims) return undefined;
    this.entries.delete(namespace); // re-insert: most recently used last
    this.entries.set(namespace, entry);
    return entry.data;
  }

  set(namespace: string, data: LoadedNamespace): void {
    this.drop(namespace);
    const bytes = data.codes.byteLength + data.scales.byteLength + data.ids.length * 48;
    if (bytes > this.budget) return;
    while (this.bytes + bytes > this.budget) this.drop(this.entries.keys().next().value as string);
    this.entries.set(namespace, { data, bytes });
    this.bytes += bytes;
  }

  /** Forgets `namespace` if it still holds `data` (a newer load may have replaced it meanwhile). */
  drop(namespace: string, data?: LoadedNamespace): void {
    const entry = this.entries.get(namespace);
    if (!entry || (data && entry.data !== data)) return;
    this.entries.delete(namespace);
    this.bytes -= entry.bytes;
  }
}

/** Rows scored between checks of the pacer: the check stays off the per-row path. */
const BLOCK_ROWS = 256;
/** Rows scored between yields to other requests (about 20,000 × 768 multiply-adds). */
const ROWS_PER_SLICE = 20_000;

/** The unit vector of `query` as float64 (the scan's multiplier). */
export function unitQuery(query: number[]): Float64Array {
  let norm = 0;
  for (const x of query) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  return Float64Array.from(query, (x) => x / norm);
}

/**
 * The k rows of `ns` with the highest cosine to the unit vector `q`, best first. One pass over the
 * codes without allocating per row; a row is only offered to the top-k when it beats the floor.
 */
export async function topK(ns: LoadedNamespace, q: Float64Array, k: number): Promise<Hit[]> {
  const { dims, scales, codes } = ns;
  const n = ns.ids.length;
  const want = Math.max(1, k);
  const rows: number[] = []; // best first
  const scores: number[] = [];
  let floor = -Infinity;
  const tail = dims - (dims % 4);
  const pacer = new Pacer(Math.ceil(ROWS_PER_SLICE / BLOCK_ROWS));
  for (let start = 0; start < n; start += BLOCK_ROWS) {
    const end = Math.min(n, start + BLOCK_ROWS);
    for (let v = start, offset = start * dims; v < end; v++, offset += dims) {
      // Four running sums: independent additions the CPU can overlap.
      let d0 = 0, d1 = 0, d2 = 0, d3 = 0;
      let i = 0;
      for (; i < tail; i += 4) {
        d0 += codes[offset + i] * q[i];
        d1 += codes[offset + i + 1] * q[i + 1];
        d2 += codes[offset + i + 2] * q[i + 2];
        d3 += codes[offset + i + 3] * q[i + 3];
      }
      for (; i < dims; i++) d0 += codes[offset + i] * q[i];
      const score = (d0 + d1 + d2 + d3) * scales[v];
      if (score <= floor) continue;
      // k is small: a sorted insert beats a heap here.
      let at = scores.length;
      while (at > 0 && scores[at - 1] < score) at--;
      scores.splice(at, 0, score);
      rows.splice(at, 0, v);
      if (scores.length > want) {
        scores.pop();
        rows.pop();
      }
      if (scores.length === want) floor = scores[want - 1];
    }
    const wait = pacer.tick();
    if (wait) await wait;
  }
  return rows.map((v, j) => ({ id: ns.ids[v], score: scores[j] }));
}
