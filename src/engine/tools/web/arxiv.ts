// arxiv: searches arXiv's Atom API ({ARXIV_BASE_URL}/api/query) by keywords or by ids, and answers
// "Published / Title / Authors / Summary" blocks, as Flowise's tool does. (loadFullContent, the
// PDF download, is not supported: the summaries are answered and the description says so.)
import { DynamicStructuredTool } from "@langchain/core/tools";
import { decodeXML } from "entities/decode";
import { z } from "zod";
import { fail } from "../../../errors";
import { bool, num, str } from "../../core/inputs";
import { ToolCallError, baseUrlOf, callService } from "../service";
import { toolName } from "../names";
import type { ToolDeps } from "../types";

const DESCRIPTION =
  "Use this tool to search for academic papers on Arxiv. You can search by keywords, topics, authors, or specific " +
  "Arxiv IDs. The tool can return either paper summaries or download and extract full paper content.";

const tag = (xml: string, name: string) => {
  const m = new RegExp(`<${name}[^>]*>([\\s\\S]*?)</${name}>`).exec(xml);
  return m ? decodeXML(m[1]).replace(/\s+/g, " ").trim() : undefined;
};

export interface ArxivEntry {
  id: string;
  title: string;
  summary: string;
  authors: string[];
  published: string;
}

function arxivEntries(xml: string): ArxivEntry[] {
  return [...xml.matchAll(/<entry>([\s\S]*?)<\/entry>/g)].flatMap(([, entry]) => {
    const id = tag(entry, "id");
    const title = tag(entry, "title");
    const summary = tag(entry, "summary");
    if (!id || !title || !summary) return [];
    const authors = [...entry.matchAll(/<author>\s*<name>([\s\S]*?)<\/name>/g)].map((m) => decodeXML(m[1]).trim());
    return [{ id, title, summary, authors, published: tag(entry, "published") ?? "" }];
  });
}

const isIdList = (query: string) => query.split(/\s+/).every((item) => /^(\d{2}(0[1-9]|1[0-2])\.\d{4,5}(v\d+)?|\d{7}.*)$/.test(item));

export async function arxivTool(inputs: Record<string, unknown>, { ctx, label }: ToolDeps) {
  const topK = Math.max(1, Math.floor(num(inputs.topKResults) ?? 3));
  const maxQuery = Math.max(1, Math.floor(num(inputs.maxQueryLength) ?? 300));
  const maxChars = Math.floor(num(inputs.docContentCharsMax) ?? 10_000);
  if (bool(inputs.loadFullContent))
    throw fail("INVALID_FLOW", `${label}: loadFullContent (PDF download) is not supported; turn it off to search summaries`);
  return new DynamicStructuredTool({
    name: toolName(str(inputs.arxivName) ?? "arxiv_search"),
    description: str(inputs.arxivDescription) ?? DESCRIPTION,
    schema: z.object({
      query: z
        .string()
        .describe("Search query for Arxiv papers. Can be keywords, topics, authors, or specific Arxiv IDs (e.g., 2301.12345)"),
    }),
    func: async ({ query }) => {
      const q = query.trim().slice(0, maxQuery);
      if (!q) throw new ToolCallError("Query is required for Arxiv search");
      const params: Record<string, string> = isIdList(q)
        ? { id_list: q.split(/\s+/).join(","), max_results: String(topK) }
        : { search_query: `all:${q.replace(/[:-]/g, "")}`, max_results: String(topK), sortBy: "relevance", sortOrder: "descending" };
      const url = `${baseUrlOf(ctx.runtime.providers.ARXIV_BASE_URL, "https://export.arxiv.org")}/api/query?${new URLSearchParams(params)}`;
      const res = await callService({ service: "arXiv", field: "ARXIV_BASE_URL", url }, ctx);
      if (!res.ok) throw new ToolCallError(`Failed to search Arxiv: arXiv answered ${res.status}`);
      const entries = arxivEntries(res.text);
      if (!entries.length) return "No good Arxiv Result was found";
      const text = entries
        .map((e) => {
          const date = Number.isNaN(Date.parse(e.published)) ? "Unknown" : new Date(e.published).toISOString().split("T")[0];
          return `Published: ${date}\nTitle: ${e.title}\nAuthors: ${e.authors.join(", ")}\nSummary: ${e.summary}`;
        })
        .join("\n\n");
      return maxChars > 0 ? text.slice(0, maxChars) : text;
    },
  });
}
