// An upsert's chunks embedded as a stream of small slices, a few requested ahead of the one being
// written: the model keeps working while vectors are decoded and stored, the first write starts
// after one slice has come back (not a whole group), and the vectors held at once stay bounded.
import { badGateway } from "../../errors";

/** What a stream asks for vectors: an embeddings model, or an adapter answering float32 vectors. */
export interface VectorSource<V> {
  embedDocuments(texts: string[]): Promise<V[]>;
}

/**
 * Texts per embedding call (a provider's own batchSize may split it further). 256 rather than 128
 * halves the calls and their per-call work on both sides: measured ~6 % less server CPU and ~7 %
 * more chunks/s per megabyte (docs/performance.md, Ingestion).
 */
export const EMBED_SLICE = 256;
/**
 * Slices requested and not yet handed to a write (so at most this many calls in flight): enough
 * that the model always has work queued while a write runs; 9 × 256 vectors at most are held at
 * once (14 MB of float32s at 1,536 dimensions), about the 2 × 1,000-chunk groups of before.
 */
export const EMBED_WINDOW = 9;

interface Slice<V> {
  vectors: Promise<V[]>;
  settled: boolean;
}

export class EmbedStream<V = number[]> {
  private readonly slices: Array<Slice<V> | undefined> = [];
  private readonly total: number;
  private taken = 0;
  private delivered = 0;

  constructor(
    private readonly embeddings: VectorSource<V>,
    private readonly texts: string[],
    private readonly slice = EMBED_SLICE,
    private readonly window = EMBED_WINDOW,
  ) {
    this.total = Math.ceil(texts.length / slice);
    this.request();
  }

  /** Starts slices until `window` are requested and not yet delivered. */
  private request(): void {
    while (this.slices.length < Math.min(this.total, this.delivered + this.window)) {
      const texts = this.texts.slice(this.slices.length * this.slice, (this.slices.length + 1) * this.slice);
      const vectors = this.embeddings.embedDocuments(texts).then((v) => {
        // Vectors are matched to chunks by position: a short answer would shift every later one.
        if (v.length !== texts.length) throw badGateway(`The embeddings answered ${v.length} vectors for ${texts.length} texts`);
        return v;
      });
      const entry: Slice<V> = { vectors, settled: false };
      // Awaited when taken; a write may fail first, so a rejection here must not go unhandled.
      entry.vectors.then(
        () => (entry.settled = true),
        () => (entry.settled = true),
      );
      this.slices.push(entry);
    }
  }

  /**
   * The next vectors, in order, never more than `max` (beyond one slice): slices waited for until
   * there are `min`, then those after them that have already arrived — writes grow when the model
   * is ahead of them. Undefined at the end.
   */
  async next(min: number, max: number): Promise<V[] | undefined> {
    if (this.taken >= this.total) return undefined;
    const out = await this.take();
    while (this.taken < this.total && out.length + this.slice <= max && (out.length < min || this.slices[this.taken]!.settled)) {
      for (const v of await this.take()) out.push(v);
    }
    return out;
  }

  private async take(): Promise<V[]> {
    const entry = this.slices[this.taken]!;
    this.slices[this.taken++] = undefined; // its vectors are the caller's now: not held here
    const vectors = await entry.vectors;
    this.delivered++;
    this.request();
    return vectors;
  }
}
