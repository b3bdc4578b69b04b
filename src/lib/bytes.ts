// Byte helpers the wire-protocol clients share (Redis, MySQL, Neo4j's Bolt, MongoDB).

/** The parts one after another, in one new array. */
export function concatBytes(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Bytes read off a socket, taken in whole messages. Each chunk is kept as it came and copied at most
 * once, into the message it belongs to: appending every chunk to one growing array copies all that
 * came before per chunk, quadratic in a reply's size (a 16 MiB MongoDB document took 13 s of CPU).
 */
export class ByteQueue {
  private chunks: Uint8Array[] = [];
  /** Bytes of chunks[0] already taken. */
  private head = 0;
  /** Bytes held. */
  length = 0;

  push(chunk: Uint8Array): void {
    if (!chunk.length) return;
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  /** Where `byte` first is among the bytes held (0 = the next one), or -1. */
  indexOf(byte: number): number {
    let before = 0;
    for (let i = 0, from = this.head; i < this.chunks.length; i++, from = 0) {
      const at = this.chunks[i].indexOf(byte, from);
      if (at >= 0) return before + at - from;
      before += this.chunks[i].length - from;
    }
    return -1;
  }

  /** The first n bytes (n ≤ length), left in the queue. */
  peek(n: number): Uint8Array {
    return this.read(n, false);
  }

  /** The first n bytes (n ≤ length), taken out. */
  take(n: number): Uint8Array {
    return this.read(n, true);
  }

  private read(n: number, consume: boolean): Uint8Array {
    if (n > this.length) throw new RangeError(`${n} bytes asked of ${this.length}`);
    const first = this.chunks[0];
    if (first && first.length - this.head >= n) {
      const out = first.subarray(this.head, this.head + n);
      if (consume) this.advance(n);
      return out;
    }
    const out = new Uint8Array(n);
    let at = 0;
    for (let i = 0, from = this.head; at < n; i++, from = 0) {
      const part = this.chunks[i].subarray(from, from + n - at);
      out.set(part, at);
      at += part.length;
    }
    if (consume) this.advance(n);
    return out;
  }

  private advance(n: number): void {
    this.length -= n;
    while (n > 0) {
      const left = this.chunks[0].length - this.head;
      if (n < left) {
        this.head += n;
        return;
      }
      n -= left;
      this.chunks.shift();
      this.head = 0;
    }
  }
}
