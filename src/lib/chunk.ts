/** D1 binds at most 100 parameters per statement; id lists are split to stay under it. */
export const D1_MAX_PARAMS = 100;

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * `items` in order, in batches of at most `size` items and `maxBytes` (as `bytesOf` counts them): what a
 * service that caps both a request's count and its size takes. An item larger than `maxBytes` goes alone.
 */
export function chunkBy<T>(items: readonly T[], size: number, maxBytes: number, bytesOf: (item: T) => number): T[][] {
  const out: T[][] = [];
  let batch: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const n = bytesOf(item);
    if (batch.length && (batch.length === size || bytes + n > maxBytes)) {
      out.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(item);
    bytes += n;
  }
  if (batch.length) out.push(batch);
  return out;
}
