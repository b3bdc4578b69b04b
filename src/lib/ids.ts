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
