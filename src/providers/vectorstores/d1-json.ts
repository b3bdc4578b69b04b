// Bulk writes for D1 that stay within its limits: at most 100 bound parameters per statement and
// about 2 MB per value. Rows travel as one JSON array parameter and SQLite unpacks them with
// json_each, so thousands of rows cost a handful of statements instead of hundreds.
const utf8 = new TextEncoder();

/** Bytes of JSON per statement: well under D1's 2 MB value limit. */
export const JSON_BATCH_BYTES = 900_000;

/** Splits rows (each an array of column values) into JSON array strings of at most `maxBytes`. */
export function jsonBatches(rows: unknown[][], maxBytes = JSON_BATCH_BYTES): string[] {
  const out: string[] = [];
  let parts: string[] = [];
  let size = 2;
  for (const row of rows) {
    const json = JSON.stringify(row);
    const bytes = utf8.encode(json).length + 1;
    if (bytes + 2 > maxBytes) throw new Error(`a row of ${bytes} bytes is too large for one D1 statement`);
    if (size + bytes > maxBytes && parts.length) {
      out.push(`[${parts.join(",")}]`);
      parts = [];
      size = 2;
    }
    parts.push(json);
    size += bytes;
  }
  if (parts.length) out.push(`[${parts.join(",")}]`);
  return out;
}

/** `json_extract(value, '$[i]')` for each column: the SELECT list that unpacks one row. */
export const jsonColumns = (count: number): string =>
  Array.from({ length: count }, (_, i) => `json_extract(value, '$[${i}]')`).join(", ");
