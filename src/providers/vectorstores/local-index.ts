// The local vector store's read side in memory: decoded namespaces kept per isolate, and the
// top-k scan over their int8 codes with a WebAssembly SIMD kernel (~15x a JavaScript loop).
// Nothing here touches D1; local.ts loads and validates.
import { Pacer } from "../../lib/pace";
// The scoring kernel (wasm/dot-i8.wat), compiled at deploy time: Workers cannot compile WebAssembly at run time.
import dotI8 from "./wasm/dot-i8.wasm";

/**
 * A namespace's vectors as of `stamp` (its version token when they were read). The int8 codes
 * live in the memory of their own instance of the scoring kernel, one row per `stride` bytes
 * (the dimensions rounded up to 16, zero-padded), followed by room for a query and one block of
 * scores; allocateNamespace lays it out, the loader fills `codes`.
 */
export interface LoadedNamespace {
  stamp: string;
  dims: number;
  ids: string[];
  scales: Float64Array;
  stride: number;
  codes: Int8Array;
  kernel: Kernel;
}

interface Kernel {
  scores(codes: number, rows: number, stride: number, query: number, out: number): void;
  memory: WebAssembly.Memory;
}

const PAGE = 65_536;

/** An empty namespace of `rows` vectors of `dims`, its codes zeroed, ready to be filled. */
export function allocateNamespace(stamp: string, dims: number, rows: number): LoadedNamespace {
  const stride = Math.ceil(dims / 16) * 16;
  const kernel = new WebAssembly.Instance(dotI8, {}).exports as unknown as Kernel;
  const bytes = rows * stride + stride * 2 + BLOCK_ROWS * 8;
  const pages = Math.ceil(bytes / PAGE) - kernel.memory.buffer.byteLength / PAGE;
  if (pages > 0) kernel.memory.grow(pages);
  return {
    stamp,
    dims,
    ids: [],
    scales: new Float64Array(rows),
    stride,
    codes: new Int8Array(kernel.memory.buffer, 0, rows * stride),
    kernel,
  };
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
    const bytes = data.kernel.memory.buffer.byteLength + data.scales.byteLength + data.ids.length * 48;
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

/** Rows scored per call of the kernel: between calls the pacer may yield to other requests. */
const BLOCK_ROWS = 1024;
/** Rows scored between yields (the kernel scores ~100 million codes a second). */
const ROWS_PER_SLICE = 100_000;

/** The unit vector of `query` as float64. */
export function unitQuery(query: number[]): Float64Array {
  let norm = 0;
  for (const x of query) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  return Float64Array.from(query, (x) => x / norm);
}

/**
 * The query as int16 for the kernel and the factor that maps its integer dot products back. The
 * scale keeps every int32 lane of the kernel from overflowing: a lane adds dims/4 products of an
 * int8 code (|c| ≤ 127) and a query value (|q| ≤ limit).
 */
function intQuery(q: Float64Array, stride: number): { values: Int16Array; factor: number } {
  let max = 0;
  for (const x of q) max = Math.max(max, Math.abs(x));
  const limit = Math.min(32_767, Math.floor(2_147_483_647 / (127 * Math.ceil(stride / 4))));
  const scale = max > 0 ? limit / max : 0;
  const values = new Int16Array(stride);
  for (let i = 0; i < q.length; i++) values[i] = Math.round(q[i] * scale);
  return { values, factor: scale > 0 ? 1 / scale : 0 };
}

/**
 * The k rows of `ns` with the highest cosine to the unit vector `q`, best first: the kernel scores
 * a block of rows at a time, and a row is only offered to the top-k when it beats the floor.
 */
export async function topK(ns: LoadedNamespace, q: Float64Array, k: number): Promise<Hit[]> {
  const { stride, scales, kernel } = ns;
  const n = ns.ids.length;
  const want = Math.max(1, k);
  const { values, factor } = intQuery(q, stride);
  const queryAt = n * stride;
  const outAt = queryAt + stride * 2;
  const rows: number[] = []; // best first
  const scores: number[] = [];
  let floor = -Infinity;
  const pacer = new Pacer(Math.ceil(ROWS_PER_SLICE / BLOCK_ROWS));
  for (let start = 0; start < n; start += BLOCK_ROWS) {
    const count = Math.min(BLOCK_ROWS, n - start);
    // Written before every block: another query on this namespace may have run while this one yielded.
    new Int16Array(kernel.memory.buffer, queryAt, stride).set(values);
    kernel.scores(start * stride, count, stride, queryAt, outAt);
    const dots = new Float64Array(kernel.memory.buffer, outAt, count);
    for (let j = 0; j < count; j++) {
      const v = start + j;
      const score = dots[j] * factor * scales[v];
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
