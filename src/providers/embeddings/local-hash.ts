// A deterministic embedder that needs no model and no network: hashed word, word-pair and
// character-trigram features, square-root damped and normalised. It ranks by shared vocabulary
// (a lexical embedding, not a semantic one): good enough for local development, tests and
// benchmarks; deployments use Workers AI.
import { Embeddings } from "@langchain/core/embeddings";
import { Pacer } from "../../lib/pace";

export const LOCAL_HASH_DIMS = 256;

// Words too common to say anything about a text; left out of word features (trigrams keep them).
const STOP_WORDS = new Set(
  (
    "a an and are as at be but by for from has have he her his i in is it its of on or our she that the their them " +
    "they this to was we were what when which who will with you your"
  ).split(" "),
);

/** FNV-1a over a string's UTF-16 code units, finished with a murmur-style mix. */
function hash(s: string, seed: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

/** An integer finaliser (lowbias32): spreads trigram codes over the dimensions. */
function mix(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

function add(v: Float32Array, h: number, weight: number): void {
  // The top bit picks a sign, so unrelated features cancel out on average instead of piling up.
  v[h % v.length] += h & 0x80000000 ? -weight : weight;
}

export function hashEmbed(text: string, dims = LOCAL_HASH_DIMS): number[] {
  const v = new Float32Array(dims);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  let previous: string | undefined;
  for (const word of words) {
    if (!STOP_WORDS.has(word)) {
      add(v, hash(word, 1), 1);
      if (previous) add(v, hash(`${previous} ${word}`, 2), 0.5);
      previous = word;
    }
    // Character trigrams of the padded word: morphology and typos still overlap.
    if (word.length > 2) {
      const padded = ` ${word} `;
      for (let i = 0; i + 3 <= padded.length; i++) {
        const code = Math.imul(Math.imul(padded.charCodeAt(i), 65599) + padded.charCodeAt(i + 1), 65599) + padded.charCodeAt(i + 2);
        add(v, mix(code ^ 0x9e3779b9), 0.25);
      }
    }
  }
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    const x = v[i];
    const damped = x < 0 ? -Math.sqrt(-x) : Math.sqrt(x);
    v[i] = damped;
    norm += damped * damped;
  }
  norm = Math.sqrt(norm);
  const out = new Array<number>(dims);
  for (let i = 0; i < dims; i++) out[i] = norm > 0 ? v[i] / norm : 0;
  return out;
}

export class LocalHashEmbeddings extends Embeddings {
  readonly dims: number;
  /** Computed here (see inIsolate). */
  readonly inIsolate = true;

  constructor(fields: { dims?: number } = {}) {
    super({});
    this.dims = fields.dims ?? LOCAL_HASH_DIMS;
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    // Yields now and then: a thousand long chunks take a noticeable while.
    const pacer = new Pacer(100);
    const out: number[][] = [];
    for (const t of texts) {
      out.push(hashEmbed(t, this.dims));
      await pacer.tick();
    }
    return out;
  }

  async embedQuery(text: string): Promise<number[]> {
    return hashEmbed(text, this.dims);
  }
}
