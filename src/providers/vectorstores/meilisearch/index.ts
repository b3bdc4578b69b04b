// The `meilisearch` vector store entry: Flowise's inputs (host, indexUid, K, semanticRatio,
// searchFilter) and credential meilisearchApi (meilisearchSearchApiKey for searches,
// meilisearchAdminApiKey for writes). Flowise's deleteIndex (drop the whole index before an
// upsert) is not done: a store here removes only the documents it wrote, as the other hosted stores.
// The host is an endpoint input under the outbound policy: refused, it is a 400 when the flow is built.
import { fail } from "../../../errors";
import { num, str } from "../../../lib/inputs";
import { checkEndpoint } from "../../../lib/outbound";
import { credentialOf } from "../../config";
import { lazily } from "../remote";
import type { VectorStoreDefinition } from "../types";
import { MeiliClient } from "./client";
import { MeiliVectorStore } from "./store";

/** Flowise's semanticRatio: 0.75 when empty, else clamped to [0, 1]. */
export function semanticRatioOf(value: unknown): number {
  const n = num(value);
  if (value === undefined || value === null || value === "") return 0.75;
  if (n === undefined) throw fail("INVALID_FLOW", "meilisearch semanticRatio must be a number between 0 and 1");
  return Math.min(1, Math.max(0, n));
}

export const meilisearchVectorStore: VectorStoreDefinition = {
  name: "meilisearch",
  build(config, ctx) {
    const raw = str(config.host);
    if (!raw) throw fail("INVALID_FLOW", "meilisearch needs its host input (e.g. http://localhost:7700)");
    let url: string;
    try {
      const u = new URL(raw);
      if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("scheme");
      url = `${u.origin}${u.pathname.replace(/\/+$/, "")}`;
    } catch {
      throw fail("INVALID_FLOW", "meilisearch host must be an http(s) URL (e.g. http://localhost:7700)");
    }
    const policy = checkEndpoint(url, "meilisearch host", ctx.env);
    const index = str(config.indexUid);
    if (!index) throw fail("INVALID_FLOW", "meilisearch needs its indexUid input (the uid of a Meilisearch index)");
    if (!/^[A-Za-z0-9_-]{1,400}$/.test(index)) throw fail("INVALID_FLOW", "meilisearch indexUid may hold only letters, digits, - and _");
    const filter = config.searchFilter;
    if (filter !== undefined && filter !== null && typeof filter !== "string")
      throw fail("INVALID_FLOW", "meilisearch searchFilter must be text in Meilisearch's filter language (e.g. metadata.source = 'a.txt')");
    const semanticRatio = semanticRatioOf(config.semanticRatio);
    const client = lazily(async () => {
      const credential = ctx.getCredential ? await credentialOf(config, { getCredential: ctx.getCredential }) : {};
      return new MeiliClient({
        url,
        policy,
        index,
        searchKey: str(credential.meilisearchSearchApiKey),
        adminKey: str(credential.meilisearchAdminApiKey),
        timeoutMs: num(config.timeout),
        signal: ctx.signal,
      });
    });
    return new MeiliVectorStore(ctx.embeddings, ctx.db, ctx.namespace, client, { semanticRatio, filter: str(filter) });
  },
};
