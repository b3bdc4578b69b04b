// notionPage (pageId) and notionDB (databaseId) over Notion's REST API (credential notionApi:
// notionIntegrationToken; NOTION_BASE_URL, default https://api.notion.com; Notion-Version 2025-09-03),
// as LangChain's NotionAPILoader reads them: a page's blocks (GET /v1/blocks/{id}/children, every
// page of them, children of blocks too) as markdown, its child pages (and child databases' rows) as
// documents of their own; a database's rows one document each. Since 2025-09-03 a database holds one or
// more data sources (older versions fail on a database with more than one: "Databases with multiple data
// sources are not supported in this API version"), so a database is read as GET /v1/databases/{id} →
// `data_sources`, then POST /v1/data_sources/{id}/query for each, every page. Lists are read page by page
// (page_size ≤ 100, start_cursor until has_more is false); a 429 waits its Retry-After. Metadata: the
// page object without `id`, `notionId`, and `properties` as text by name.
import { Document } from "@langchain/core/documents";
import { fail } from "../../../errors";
import { overLimit } from "../../../lib/limits";
import { credentialOf } from "../../config";
import { hostedJson, serviceBase } from "../hosted/call";
import type { LoaderDefinition, LoaderInput } from "../types";
import { blockMarkdown, pageProperties } from "./markdown";

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);
const NOTION_VERSION = "2025-09-03";
/** The most API calls one load makes (a page of blocks is one call). */
const MAX_CALLS = 2_000;
const LIST_ITEMS = new Set(["bulleted_list_item", "numbered_list_item", "to_do", "toggle"]);

class NotionReader {
  private calls = 0;
  private readonly queue: string[] = [];
  private readonly seen = new Set<string>();
  private readonly sourcesRead = new Set<string>();
  readonly docs: Document[] = [];

  constructor(
    private readonly input: LoaderInput,
    private readonly api: string,
    private readonly token: string,
  ) {}

  private async call(path: string, body?: Obj): Promise<Obj> {
    if (++this.calls > MAX_CALLS) throw fail("LIMIT_EXCEEDED", `Notion: loading needs more than ${MAX_CALLS} API calls`);
    const headers = { Authorization: `Bearer ${this.token}`, "Notion-Version": NOTION_VERSION, "Content-Type": "application/json" };
    const init: RequestInit = body ? { method: "POST", headers, body: JSON.stringify(body) } : { headers };
    const res = await hostedJson(this.input, {
      service: "Notion",
      field: "NOTION_BASE_URL",
      url: `${this.api}${path}`,
      init,
      secrets: [this.token],
      // Notion averages 3 requests a second per integration and answers 429 with Retry-After past
      // that; a page tree of hundreds of blocks gets there, so the wait is honoured, not a failure.
      rateLimitRetries: 3,
    });
    return isObject(res) ? res : {};
  }

  /** Every result of a paginated list (start_cursor / has_more / next_cursor). */
  private async all(path: string, post: boolean): Promise<Obj[]> {
    const out: Obj[] = [];
    let cursor: string | undefined;
    do {
      const res = post
        ? await this.call(path, { page_size: 50, ...(cursor ? { start_cursor: cursor } : {}) })
        : await this.call(`${path}?page_size=100${cursor ? `&start_cursor=${encodeURIComponent(cursor)}` : ""}`);
      if (Array.isArray(res.results)) out.push(...res.results.filter(isObject));
      cursor = res.has_more === true && typeof res.next_cursor === "string" ? res.next_cursor : undefined;
    } while (cursor);
    return out;
  }

  enqueue(...ids: string[]): void {
    for (const id of ids) {
      if (this.seen.has(id)) continue;
      this.seen.add(id);
      this.queue.push(id);
    }
    if (this.seen.size > this.input.limits.chunks)
      throw overLimit(this.input.limits, "chunks", "What Notion has under this id", this.seen.size);
  }

  /** A database's rows: every data source it holds (a wiki's query also lists nested data sources). */
  async queueDatabase(id: string): Promise<void> {
    const db = await this.call(`/v1/databases/${encodeURIComponent(id)}`);
    const sources = (Array.isArray(db.data_sources) ? db.data_sources : []).filter(isObject).map((d) => String(d.id));
    for (let source = sources.shift(); source !== undefined; source = sources.shift()) {
      if (this.sourcesRead.has(source)) continue;
      this.sourcesRead.add(source);
      const rows = await this.all(`/v1/data_sources/${encodeURIComponent(source)}/query`, true);
      sources.push(...rows.filter((r) => r.object === "data_source").map((r) => String(r.id)));
      this.enqueue(...rows.filter((r) => r.object !== "data_source").map((r) => String(r.id)));
    }
  }

  /** The markdown of a block list, child pages and databases queued instead of rendered. */
  private async blocks(parentId: string, depth: number): Promise<string[]> {
    const out: string[] = [];
    for (const block of await this.all(`/v1/blocks/${encodeURIComponent(parentId)}/children`, false)) {
      const id = String(block.id);
      if (block.type === "child_page") this.enqueue(id);
      else if (block.type === "child_database") await this.queueDatabase(id);
      else {
        let md = blockMarkdown(block);
        if (block.has_children === true && depth < 20) {
          const synced =
            isObject(block.synced_block) && isObject(block.synced_block.synced_from) ? block.synced_block.synced_from.block_id : undefined;
          const children = await this.blocks(typeof synced === "string" ? synced : id, depth + 1);
          const indent = LIST_ITEMS.has(String(block.type)) ? "    " : "";
          const nested = children.map((c) => c.replace(/^/gm, indent)).join("\n");
          md = md ? `${md}\n${nested}` : nested;
        }
        if (md.trim()) out.push(md);
      }
    }
    return out;
  }

  async run(): Promise<void> {
    for (let id = this.queue.shift(); id !== undefined; id = this.queue.shift()) {
      const page = await this.call(`/v1/pages/${encodeURIComponent(id)}`);
      const pageContent = (await this.blocks(id, 0)).join("\n\n");
      if (!pageContent.trim()) continue;
      const { id: notionId, ...rest } = page;
      this.docs.push(new Document({ pageContent, metadata: { ...rest, notionId, properties: pageProperties(page) } }));
    }
  }
}

async function readerFor(input: LoaderInput, loader: string): Promise<NotionReader> {
  const cred = input.getCredential ? await credentialOf(input.config, { getCredential: input.getCredential }).catch(() => ({})) : {};
  const token = (cred as Obj).notionIntegrationToken;
  if (typeof token !== "string" || !token.trim())
    throw fail("INVALID_INPUT", `${loader} needs a notionApi credential with notionIntegrationToken`);
  return new NotionReader(input, serviceBase(input.services?.NOTION_BASE_URL, "https://api.notion.com"), token.trim());
}

const idOf = (value: unknown, loader: string, field: string): string => {
  const id = typeof value === "string" ? value.trim() : "";
  if (!id) throw fail("INVALID_INPUT", `${loader} needs its ${field}`);
  return id;
};

export const notionLoaders: LoaderDefinition[] = [
  {
    name: "notionPage",
    label: "Notion Page",
    async load(input) {
      const reader = await readerFor(input, "notionPage");
      reader.enqueue(idOf(input.config.pageId, "notionPage", "pageId"));
      await reader.run();
      return reader.docs;
    },
  },
  {
    name: "notionDB",
    label: "Notion Database",
    async load(input) {
      const reader = await readerFor(input, "notionDB");
      await reader.queueDatabase(idOf(input.config.databaseId, "notionDB", "databaseId"));
      await reader.run();
      return reader.docs;
    },
  },
];
