// edgeflow's own templates, as Flowise's GET /marketplaces/templates answers them: read from the
// static asset the build writes (scripts/lib/templates.mjs: the checked sources and the catalogue
// descriptors they use), expanded once per isolate and asset version (its ETag), AgentflowV2 first,
// then chatflows, each kind by name.
import { fetchAsset } from "../../lib/assets";
import type { Descriptor } from "../catalogue/node-data";
import { type TemplateSource, expandFlow } from "./expand";

/** One marketplace entry, Flowise's shape (plus a voice template's speech settings, as a chatflow stores them). */
export interface MarketplaceTemplate {
  id: string;
  templateName: string;
  flowData: string;
  description: string;
  type: string;
  categories: string[];
  usecases: string[];
  framework: string[];
  badge?: string;
  speechToText?: string;
  textToSpeech?: string;
}

interface Built {
  templates: TemplateSource[];
  descriptors: Record<string, Descriptor>;
}

const ORDER: Record<string, number> = { AgentflowV2: 0, Chatflow: 1, Tool: 2 };

export function toMarketplace(t: TemplateSource, descriptors: Record<string, Descriptor>): MarketplaceTemplate {
  const flow = expandFlow(t, descriptors);
  const categories = [...new Set(flow.nodes.map((n) => n.data.category).filter(Boolean))];
  return {
    id: t.id,
    templateName: t.templateName,
    flowData: JSON.stringify(flow),
    description: t.description,
    type: t.type,
    categories,
    usecases: t.usecases,
    framework: t.framework ?? [],
    ...(t.badge ? { badge: t.badge } : {}),
    ...(t.speechToText ? { speechToText: JSON.stringify(t.speechToText) } : {}),
    ...(t.textToSpeech ? { textToSpeech: JSON.stringify(t.textToSpeech) } : {}),
  };
}

let cached: { etag: string | undefined; list: MarketplaceTemplate[] } | undefined;

export interface TemplateList {
  /** Undefined when the caller's copy (If-None-Match) is current. */
  list?: MarketplaceTemplate[];
  etag?: string;
}

/** The built-in templates; none when the caller's ETag is the asset's. */
export async function builtinTemplates(ifNoneMatch?: string): Promise<TemplateList> {
  const res = await fetchAsset("templates/templates.json");
  if (!res.ok) throw new Error(`The templates asset answered ${res.status}: build it with \`node scripts/build-assets.mjs\``);
  const etag = res.headers.get("etag") ?? undefined;
  if (etag && ifNoneMatch?.split(",").some((t) => t.trim().replace(/^W\//, "") === etag.replace(/^W\//, ""))) {
    await res.body?.cancel();
    return { etag };
  }
  if (cached && etag && cached.etag === etag) {
    await res.body?.cancel();
    return { list: cached.list, etag };
  }
  const built = (await res.json()) as Built;
  const list = built.templates
    .map((t) => toMarketplace(t, built.descriptors))
    .sort((a, b) => (ORDER[a.type] ?? 9) - (ORDER[b.type] ?? 9) || a.templateName.localeCompare(b.templateName));
  cached = { etag, list };
  return { list, etag };
}
