// A Google list read page by page: Gmail (maxResults ≤ 500), Calendar (maxResults ≤ 2500) and Drive
// (pageSize 1–1000) serve at most their cap per page (Gmail and Calendar cut a larger ask silently,
// Drive refuses it with a 400) and may answer a short page before the end, so a count the model or the
// node asks for is read with each page within the cap, following nextPageToken until it is reached.
import { type OAuth2Api, apiCall } from "../oauth2/api";

/** Pages read at most for one list (10 × the cap: 5,000 messages, 25,000 events, 10,000 files). */
export const MAX_PAGES = 10;

export interface PagedList {
  path: string;
  query: Record<string, string | number | boolean | undefined>;
  /** The answer's list field (`messages`, `items`, `files`). */
  key: string;
  /** The page size parameter (`maxResults`, `pageSize`) and the service's cap on it. */
  sizeParam: string;
  cap: number;
  /** How many items were asked for (a positive number; others are the service's default). */
  wanted: number;
  /** The page to start from (Drive's list_files takes one from the model). */
  pageToken?: string;
}

type Page = Record<string, unknown> & { nextPageToken?: string };

/** The count asked for as a positive whole number, else the default. */
export const wantedCount = (value: unknown, fallback: number): number => {
  const n = Math.floor(Number(value));
  return Number.isFinite(n) && n >= 1 ? n : fallback;
};

/** The first page's answer with the list of every page read; nextPageToken only when more remain. */
export async function readPages(api: OAuth2Api, list: PagedList): Promise<Page> {
  const items: unknown[] = [];
  let first: Page | undefined;
  let token = list.pageToken;
  for (let n = 0; n < MAX_PAGES && items.length < list.wanted; n++) {
    const size = Math.min(list.wanted - items.length, list.cap);
    const page = (await apiCall(api, {
      path: list.path,
      query: { ...list.query, [list.sizeParam]: size, pageToken: token },
    })) as Page;
    first ??= page;
    const got = page[list.key];
    if (Array.isArray(got)) items.push(...got);
    token = typeof page.nextPageToken === "string" && page.nextPageToken ? page.nextPageToken : undefined;
    if (!token) break;
  }
  const { nextPageToken: _drop, ...head } = first ?? {};
  return { ...head, [list.key]: items.slice(0, list.wanted), ...(token ? { nextPageToken: token } : {}) };
}
