export const newId = (): string => crypto.randomUUID();

/** A UUID in either letter case (ids are stored lower-case, so callers lower-case before comparing). */
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);

/**
 * A UUID made from `seed` (SHA-256, shaped as an RFC 9562 version 8 UUID): the same seed gives the
 * same id, so a replayed detached run names its messages as it did the first time.
 */
export async function stableId(seed: string): Promise<string> {
  const b = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(seed))).slice(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x80;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * `count` UUIDs in ascending order (RFC 9562 version 7 layout: the time in ms, a sequence in the
 * random bits, then randomness): rows keyed by them go to the end of their indexes instead of all
 * over them, so a bulk insert (an upsert's chunks) touches few pages. Unique as randomUUID's are in
 * practice: ids of one millisecond differ in a random sequence start and 48 random bits.
 */
export function orderedIds(count: number): string[] {
  const random = crypto.getRandomValues(new Uint32Array(3));
  const time = Date.now().toString(16).padStart(12, "0");
  const tail = random[1]!.toString(16).padStart(8, "0") + (random[2]! & 0xffff).toString(16).padStart(4, "0");
  const start = random[0]! & 0x7fffff; // 24-bit sequence: room for 8 million ids after the start
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const seq = (start + i).toString(16).padStart(6, "0");
    out.push(`${time.slice(0, 8)}-${time.slice(8)}-7${seq.slice(0, 3)}-8${seq.slice(3)}-${tail}`);
  }
  return out;
}

/**
 * A row id for a BIGINT id column, made from `id`: a decimal id JSON carries exactly is kept, any other
 * is 52 bits of its SHA-256 plus `offset` (SingleStore's ids start at 1; Supabase's at 2^52, clear of a
 * bigserial sequence's numbers). The same id always gives the same number.
 */
export async function numericId(id: string, offset = 1): Promise<string> {
  if (/^[1-9]\d{0,15}$/.test(id) && Number.isSafeInteger(Number(id))) return id;
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(id)));
  let n = 0;
  for (let i = 0; i < 6; i++) n = n * 256 + hash[i]!;
  return String(n * 16 + (hash[6]! >> 4) + offset);
}
