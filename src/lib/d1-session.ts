// Each request reads and writes D1 through one session of D1's Sessions API (withSession): its
// reads go to the nearest replica with read replication on (to the primary without it), its writes
// to the primary, and everything it does is sequentially consistent. A client reads its own writes
// by sending back the bookmark a response gave it (x-d1-bookmark): the session then reads from a
// replica at least that recent.
import { fail } from "../errors";

/** Sent back on every response that used D1; accepted on any request. */
export const BOOKMARK_HEADER = "x-d1-bookmark";

// D1's bookmarks are hyphen-separated hex fields (e.g. 00000000-0000000e-00000000-<32 hex>);
// anything else would fail inside D1, so it is refused at the door.
const BOOKMARK = /^[0-9a-f]{1,64}(?:-[0-9a-f]{1,64}){1,7}$/i;

/** The request's bookmark (undefined: none); 400 for a value that is not one. */
export function bookmarkOf(header: string | undefined): string | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (value.length > 256 || !BOOKMARK.test(value))
    throw fail("BAD_REQUEST", `${BOOKMARK_HEADER} must be a bookmark a previous response gave (hex fields separated by "-")`);
  return value;
}

// Requests that write but mostly read: a run reads its flow, key, credentials and variables before
// the model and writes its messages after. They read from a replica like a GET; their writes still
// go to the primary (D1 routes every write there), and the session reads its own writes.
const RUN_PATHS = [
  /^\/api\/v1\/prediction\/[^/]+\/?$/,
  /^\/api\/v1\/openai\/(?:chat\/completions|responses)\/?$/,
  /^\/api\/v1\/mcp(?:\/[^/]+)?\/?$/,
  // A webhook runs its flow whatever its method.
  /^\/api\/v1\/webhook\/[^/]+\/?$/,
];

/**
 * Where the session's first query goes. A GET (or a run) starts at the nearest replica, or at one
 * as recent as the client's bookmark. Any other write starts at the primary: the reads it checks
 * before writing (does the record exist, is the name free) see the latest state.
 */
export function sessionStart(method: string, path: string, bookmark: string | undefined): { constraint: string; primaryFirst: boolean } {
  const reads = method === "GET" || method === "HEAD" || RUN_PATHS.some((re) => re.test(path));
  if (!reads) return { constraint: "first-primary", primaryFirst: true };
  return { constraint: bookmark ?? "first-unconstrained", primaryFirst: false };
}
