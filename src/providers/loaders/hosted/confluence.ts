// confluence (credential confluenceCloudApi: username + accessToken as Basic auth, or
// confluenceServerDCApi: personalAccessToken as Bearer): a space's pages, as LangChain's
// ConfluencePagesLoader reads them: the storage HTML as text (code macros kept as fenced code,
// attachment macros as [ATTACHMENT], empty lines dropped), metadata {id, status, title, type, url,
// version, updated_by, updated_at}. Confluence Cloud deprecated the v1 content listing LangChain calls
// (CHANGE-864; its API gateway answers 410), so Cloud is read through REST v2: GET {baseUrl}/api/v2/
// spaces?keys= for the space id, then /api/v2/spaces/{id}/pages?body-format=storage&status=current
// (limit ≤ 250, the `cursor` of `_links.next`), authors' names by POST /api/v2/users-bulk. Data
// Center/Server has no v2: GET {baseUrl}/rest/api/content?spaceKey&limit&start&expand=body.storage,
// version, page after page until one is empty. Which one (docs/document-stores.md): a host under
// atlassian.net or api.atlassian.com is Cloud; a personal access token (Cloud has none) is Data Center;
// a username + token elsewhere tries v2 and reads v1 when the server has no v2 (404 or not JSON).
// `baseUrl` is the flow's choice: under the outbound request rule.
import { Document } from "@langchain/core/documents";
import { fail } from "../../../errors";
import { overLimit } from "../../../lib/limits";
import { credentialOf } from "../../config";
import type { LoaderDefinition, LoaderInput } from "../types";
import { htmlToText } from "../web";
import { hostedCall } from "./call";

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);
const o = (v: unknown): Obj => (isObject(v) ? v : {});
const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");
const MAX_PAGES_OF_RESULTS = 1_000;
/** v2 list endpoints take `limit` 1–250 (Confluence Cloud REST v2 reference, e.g. Get pages in space). */
const V2_MAX_LIMIT = 250;
/** POST /api/v2/users-bulk takes 1–250 `accountIds`. */
const USERS_BULK_MAX = 250;

const ATTACHMENT_MACRO = /<ac:structured-macro\s+ac:name="(attachments|view-file)"[^>]*(?:\/?>|>.*?<\/ac:structured-macro>)/gs;
const CODE_MACRO = new RegExp(
  '<ac:structured-macro.*?<ac:parameter ac:name="language">(.*?)</ac:parameter>.*?' +
    "<ac:plain-text-body><!\\[CDATA\\[([\\s\\S]*?)\\]\\]></ac:plain-text-body></ac:structured-macro>",
  "g",
);

async function pageText(html: string): Promise<string> {
  const code: Array<{ language: string; code: string }> = [];
  const marked = html.replace(ATTACHMENT_MACRO, "[ATTACHMENT]").replace(CODE_MACRO, (_, language: string, body: string) => {
    code.push({ language, code: body.trim() });
    return `<p>CODE_BLOCK_${code.length - 1}</p><br>`;
  });
  let out = (await htmlToText(`<body>${marked}</body>`)).text;
  code.forEach((c, i) => {
    out = out.replace(`CODE_BLOCK_${i}`, `\`\`\`${c.language}\n${c.code}\n\`\`\``);
  });
  return out.replace(/^\s*[\r\n]/gm, "");
}

interface Site {
  input: LoaderInput;
  baseUrl: string;
  spaceKey: string;
  limit: number;
  headers: Record<string, string>;
  secrets: string[];
}

const call = (site: Site, url: string, init: RequestInit = {}, allowStatus?: number[]) =>
  hostedCall(site.input, {
    service: "Confluence",
    url,
    init: { ...init, headers: site.headers },
    secrets: site.secrets,
    allowStatus,
  });

const parse = (text: string): Obj => {
  try {
    return o(JSON.parse(text));
  } catch {
    throw fail("UPSTREAM_FAILED", "Confluence answered something that is not JSON");
  }
};

/** v1 (Data Center/Server): `start` moves by what came back (`limit` is capped by the server), until an empty page. */
async function pagesV1(site: Site): Promise<Obj[]> {
  const pages: Obj[] = [];
  for (let start = 0, n = 0; n < MAX_PAGES_OF_RESULTS; n++) {
    const params = `spaceKey=${encodeURIComponent(site.spaceKey)}&limit=${site.limit}&start=${start}&expand=body.storage,version`;
    const data = parse((await call(site, `${site.baseUrl}/rest/api/content?${params}`)).text);
    const results = Array.isArray(data.results) ? data.results.filter(isObject) : [];
    const size = typeof data.size === "number" ? data.size : results.length;
    if (!size || !results.length) break;
    pages.push(...results);
    if (pages.length > site.input.limits.chunks)
      throw overLimit(site.input.limits, "chunks", `Confluence space ${site.spaceKey}`, pages.length);
    start += size;
  }
  return pages;
}

/**
 * v2 (Cloud): the space's current pages in v1's shape ({type, version: {number, when, by: {displayName}}}),
 * or undefined when `probe` and the server has no v2 API (Data Center answers 404, or a login page).
 */
async function pagesV2(site: Site, probe: boolean): Promise<Obj[] | undefined> {
  const found = await call(site, `${site.baseUrl}/api/v2/spaces?keys=${encodeURIComponent(site.spaceKey)}`, {}, probe ? [404] : []);
  if (probe && (found.status === 404 || !found.contentType.includes("json"))) return undefined;
  const spaces = (parse(found.text).results as unknown[] | undefined) ?? [];
  const space = spaces.find((s) => o(s).key === site.spaceKey) ?? spaces[0];
  if (!isObject(space)) throw fail("UPSTREAM_FAILED", `Confluence has no space ${site.spaceKey} this credential can read`);
  // v2 lists `current` and `archived` pages unless told; v1's listing gave current ones only.
  const base = `${site.baseUrl}/api/v2/spaces/${encodeURIComponent(String(space.id))}/pages?body-format=storage&status=current`;
  const limit = Math.min(site.limit, V2_MAX_LIMIT);
  const pages: Obj[] = [];
  let cursor: string | null = null;
  for (let n = 0; n < MAX_PAGES_OF_RESULTS; n++) {
    const data = parse((await call(site, `${base}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`)).text);
    pages.push(...(Array.isArray(data.results) ? data.results.filter(isObject) : []));
    if (pages.length > site.input.limits.chunks)
      throw overLimit(site.input.limits, "chunks", `Confluence space ${site.spaceKey}`, pages.length);
    // The next page is only reachable through the opaque cursor in `_links.next` (site-relative: kept
    // out of the URL we build, which may run through a gateway path).
    const next = text(o(data._links).next);
    cursor = next ? new URL(next, "http://x").searchParams.get("cursor") : null;
    if (!cursor) break;
  }
  const names = await authorNames(site, pages);
  return pages.map((p) => {
    const v = o(p.version);
    return { ...p, type: "page", version: { number: v.number, when: v.createdAt, by: { displayName: names.get(text(v.authorId)) } } };
  });
}

/** Display names of the pages' last editors (v2 gives account ids), 250 ids a call as users-bulk takes. */
async function authorNames(site: Site, pages: Obj[]): Promise<Map<string, unknown>> {
  const ids = [...new Set(pages.map((p) => text(o(p.version).authorId)).filter(Boolean))];
  const names = new Map<string, unknown>();
  for (let i = 0; i < ids.length; i += USERS_BULK_MAX) {
    const init = { method: "POST", body: JSON.stringify({ accountIds: ids.slice(i, i + USERS_BULK_MAX) }) };
    // A user without permission to view profiles gets 404: the pages still load, without names.
    const res = await call(site, `${site.baseUrl}/api/v2/users-bulk`, init, [403, 404]);
    if (res.status !== 200) break;
    for (const u of (parse(res.text).results as unknown[] | undefined) ?? []) names.set(text(o(u).accountId), o(u).displayName);
  }
  return names;
}

async function loadConfluence(input: LoaderInput): Promise<Document[]> {
  const { config } = input;
  const baseUrl = text(config.baseUrl).replace(/\/+$/, "");
  const spaceKey = text(config.spaceKey);
  if (!baseUrl || !spaceKey) throw fail("INVALID_INPUT", "confluence needs its baseUrl and spaceKey");
  const limit = Number(config.limit) > 0 ? Math.floor(Number(config.limit)) : 25;
  const cred = (input.getCredential ? await credentialOf(config, { getCredential: input.getCredential }).catch(() => ({})) : {}) as Obj;
  const pat = text(cred.personalAccessToken);
  const [user, token] = [text(cred.username), text(cred.accessToken)];
  const auth = pat ? `Bearer ${pat}` : user && token ? `Basic ${btoa(`${user}:${token}`)}` : "";
  if (!auth)
    throw fail("INVALID_INPUT", "confluence needs a confluenceCloudApi (username, accessToken) or confluenceServerDCApi credential");
  const headers = { Authorization: auth, Accept: "application/json", "Content-Type": "application/json" };
  const site: Site = { input, baseUrl, spaceKey, limit, headers, secrets: [pat, token, auth.split(" ")[1]].filter(Boolean) };
  let host = "";
  try {
    host = new URL(baseUrl).hostname.toLowerCase();
  } catch {
    // an unparsable baseUrl fails at the call, under the outbound rule
  }
  const cloud = host.endsWith(".atlassian.net") || host === "api.atlassian.com";
  const pages = cloud ? await pagesV2(site, false) : pat ? await pagesV1(site) : ((await pagesV2(site, true)) ?? (await pagesV1(site)));
  const docs: Document[] = [];
  for (const page of pages ?? []) {
    const version = o(page.version);
    docs.push(
      new Document({
        pageContent: await pageText(text(o(o(page.body).storage).value)),
        metadata: {
          id: page.id,
          status: page.status,
          title: page.title,
          type: page.type,
          url: `${baseUrl}/spaces/${spaceKey}/pages/${page.id}`,
          version: version.number,
          updated_by: o(version.by).displayName,
          updated_at: version.when,
        },
      }),
    );
  }
  return docs;
}

export const confluenceLoader: LoaderDefinition = { name: "confluence", label: "Confluence", load: loadConfluence };
