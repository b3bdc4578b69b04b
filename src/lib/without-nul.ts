// NUL characters taken out of text bound for PostgreSQL (Supabase, Zep): its text and jsonb cannot
// hold one (22021, 22P05), and PDF text and metadata sometimes carry them.

/** `value` without NUL in its strings and keys; plain objects and arrays walked, anything else (a Date) as it is. */
export function withoutNul<T>(value: T): T {
  if (typeof value === "string") return value.replaceAll("\u0000", "") as T;
  if (Array.isArray(value)) return value.map(withoutNul) as T;
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replaceAll("\u0000", ""), withoutNul(v)])) as T;
  return value;
}
