// The `elasticsearch` and `openSearch` vector store entries. elasticsearch: Flowise's inputs
// (indexName, similarity: l2_norm, dot_product or cosine) and credential elasticsearchApi (endpoint,
// apiKey → `Authorization: ApiKey`) or elasticSearchUserPassword (cloudId — an Elastic Cloud ID or
// the server's URL —, username, password → Basic). openSearch: indexName, engine (lucene, faiss,
// nmslib), spaceType (l2, cosinesimil, innerproduct), credential openSearchUrl (openSearchUrl, user,
// password → Basic). The URLs are the credentials', so the outbound policy checks them when the
// credential is read (a refused one is a 400 at the first call).
import { fail } from "../../../errors";
import { num, str } from "../../../lib/inputs";
import { checkEndpoint } from "../../../lib/outbound";
import { credentialOf } from "../../config";
import { lazily } from "../remote";
import type { VectorStoreContext, VectorStoreDefinition } from "../types";
import { SearchClient, type SearchFlavor } from "./client";
import { SearchVectorStore } from "./store";

const SIMILARITIES = ["l2_norm", "dot_product", "cosine"];
const ENGINES = ["lucene", "faiss", "nmslib"];
const SPACES = ["l2", "cosinesimil", "innerproduct"];

/** An Elastic Cloud ID ("name:base64(host$es-id$kibana-id)") as its Elasticsearch URL, as Elastic's client reads it. */
export function cloudIdUrl(cloudId: string): string | undefined {
  const encoded = cloudId.slice(cloudId.indexOf(":") + 1);
  try {
    const [host, esId] = atob(encoded).split("$");
    if (!host || !esId) return undefined;
    const [hostname, port] = host.split(":");
    return `https://${esId}.${hostname}${port && port !== "443" ? `:${port}` : ""}`;
  } catch {
    return undefined;
  }
}

/** A credential's URL (origin and path, user and password taken out) and its user:password, if any. */
function serviceUrl(raw: string, field: string): { url: string; user?: string; password?: string } {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw fail("INVALID_FLOW", `${field} must be an http(s) URL`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw fail("INVALID_FLOW", `${field} must be an http(s) URL`);
  const user = u.username ? decodeURIComponent(u.username) : undefined;
  const password = u.password ? decodeURIComponent(u.password) : undefined;
  return { url: `${u.origin}${u.pathname.replace(/\/+$/, "")}`, user, password };
}

const basic = (user: string, password: string) => `Basic ${btoa(`${user}:${password}`)}`;

interface Connection {
  url: string;
  field: string;
  authorization?: string;
  secret?: string;
  credentialHint: string;
}

function client(flavor: SearchFlavor, config: Record<string, unknown>, ctx: VectorStoreContext, index: string, connect: Connection) {
  return new SearchClient({
    flavor,
    url: connect.url,
    policy: checkEndpoint(connect.url, connect.field, ctx.env),
    index,
    authorization: connect.authorization,
    secret: connect.secret,
    credentialHint: connect.credentialHint,
    timeoutMs: num(config.timeout),
    signal: ctx.signal,
  });
}

/** Flowise's order: an endpoint (with an API key), else a cloudId (with a user and password). */
function elasticConnection(credential: Record<string, unknown>): Connection {
  const endpoint = str(credential.endpoint);
  if (endpoint) {
    const field = "elasticsearchApi credential endpoint";
    const { url } = serviceUrl(endpoint, field);
    const apiKey = str(credential.apiKey);
    return { url, field, authorization: apiKey && `ApiKey ${apiKey}`, secret: apiKey, credentialHint: "elasticsearchApi" };
  }
  const cloudId = str(credential.cloudId);
  if (!cloudId)
    throw fail(
      "MISSING_CREDENTIAL",
      "elasticsearch is not configured: connect an elasticsearchApi credential (endpoint, apiKey) " +
        "or an elasticSearchUserPassword one (cloudId, username, password)",
    );
  const field = "elasticSearchUserPassword credential cloudId";
  const raw = /^http/i.test(cloudId) ? cloudId : cloudIdUrl(cloudId);
  if (!raw) throw fail("INVALID_FLOW", `${field} is neither an Elastic Cloud ID nor an http(s) URL`);
  const { url } = serviceUrl(raw, field);
  const username = str(credential.username);
  const password = str(credential.password);
  const authorization = username || password ? basic(username ?? "", password ?? "") : undefined;
  return { url, field, authorization, secret: password, credentialHint: "elasticSearchUserPassword" };
}

function indexName(config: Record<string, unknown>, node: string): string {
  const index = str(config.indexName);
  if (!index) throw fail("INVALID_FLOW", `${node} needs its indexName input (the name of an index)`);
  if (index !== index.toLowerCase() || /[\\/*?"<>| ,#:]/.test(index) || /^[-_+.]/.test(index))
    throw fail("INVALID_FLOW", `${node} indexName must be a valid index name (lowercase, no spaces or \\/*?"<>|,#:)`);
  return index;
}

export const elasticsearchVectorStore: VectorStoreDefinition = {
  name: "elasticsearch",
  build(config, ctx) {
    const index = indexName(config, "elasticsearch");
    // Flowise's node reads `similarityMeasure` (its input is named `similarity`): both are read here.
    const similarity = str(config.similarityMeasure) ?? str(config.similarity) ?? "l2_norm";
    if (!SIMILARITIES.includes(similarity))
      throw fail("INVALID_FLOW", `elasticsearch similarity must be one of ${SIMILARITIES.join(", ")}`);
    const lazy = lazily(async () => {
      const credential = ctx.getCredential ? await credentialOf(config, { getCredential: ctx.getCredential }) : {};
      return client("elasticsearch", config, ctx, index, elasticConnection(credential));
    });
    return new SearchVectorStore(ctx.embeddings, ctx.db, ctx.namespace, lazy, {
      provider: "elasticsearch",
      dropMetadata: ["pdf", "loc"],
      unitVectors: similarity === "dot_product",
      // LangChain's ElasticVectorSearch mapping.
      indexBody: (dims) => ({
        mappings: {
          dynamic_templates: [
            {
              metadata_except_loc: { match_mapping_type: "*", match: "metadata.*", unmatch: "metadata.loc", mapping: { type: "keyword" } },
            },
          ],
          properties: {
            text: { type: "text" },
            metadata: { type: "object", properties: { loc: { type: "object" } } },
            embedding: {
              type: "dense_vector",
              dims,
              index: true,
              similarity,
              index_options: { type: "hnsw", m: 16, ef_construction: 100 },
            },
          },
        },
      }),
    });
  },
};

export const openSearchVectorStore: VectorStoreDefinition = {
  name: "openSearch",
  build(config, ctx) {
    const index = indexName(config, "openSearch");
    const engine = str(config.engine) ?? "lucene";
    if (!ENGINES.includes(engine)) throw fail("INVALID_FLOW", `openSearch engine must be one of ${ENGINES.join(", ")}`);
    const spaceType = str(config.spaceType) ?? "l2";
    if (!SPACES.includes(spaceType)) throw fail("INVALID_FLOW", `openSearch spaceType must be one of ${SPACES.join(", ")}`);
    const lazy = lazily(async () => {
      const credential = ctx.getCredential ? await credentialOf(config, { getCredential: ctx.getCredential }) : {};
      const raw = str(credential.openSearchUrl);
      if (!raw)
        throw fail("MISSING_CREDENTIAL", "openSearch is not configured: connect an openSearchUrl credential with its openSearchUrl");
      const field = "openSearchUrl credential openSearchUrl";
      const parsed = serviceUrl(raw, field);
      const user = str(credential.user) ?? parsed.user;
      const password = str(credential.password) ?? parsed.password;
      const authorization = user && password ? basic(user, password) : undefined;
      return client("opensearch", config, ctx, index, {
        url: parsed.url,
        field,
        authorization,
        secret: password,
        credentialHint: "openSearchUrl",
      });
    });
    return new SearchVectorStore(ctx.embeddings, ctx.db, ctx.namespace, lazy, {
      provider: "openSearch",
      // LangChain's OpenSearchVectorStore settings and mapping.
      indexBody: (dimension) => ({
        settings: { index: { number_of_shards: 5, number_of_replicas: 1, knn: true, "knn.algo_param.ef_search": 512 } },
        mappings: {
          dynamic_templates: [
            { "metadata.*": { match_mapping_type: "string", mapping: { type: "keyword" } } },
            { "metadata.loc": { match_mapping_type: "object", mapping: { type: "object" } } },
          ],
          properties: {
            text: { type: "text" },
            metadata: { type: "object" },
            embedding: {
              type: "knn_vector",
              dimension,
              method: { name: "hnsw", engine, space_type: spaceType, parameters: { ef_construction: 512, m: 16 } },
            },
          },
        },
      }),
    });
  },
};
