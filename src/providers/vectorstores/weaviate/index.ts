// The `weaviate` vector store entry: Flowise's inputs (weaviateConnectionType, weaviateHost,
// weaviateHttpSecure, weaviateIndex, weaviateTextKey, weaviateMetadataKeys, weaviateFilter;
// optional credential weaviateApi with weaviateApiKey). The gRPC inputs (weaviateGrpcHost,
// weaviateGrpcSecure) and the hybrid search's alpha are not read: everything goes over REST. The
// server: weaviateHost as host[:port] — https for "cloud", http for "local" (port 8080 by default),
// weaviateHttpSecure for "custom" (port 8080 by default) — or as an http(s) URL, taken as it is.
// Under the outbound policy: a refused server is a 400 when the flow is built.
import { fail } from "../../../errors";
import { bool, num, str } from "../../../lib/inputs";
import { checkEndpoint } from "../../../lib/outbound";
import { credentialOf } from "../../config";
import { jsonObjectInput, lazily } from "../remote";
import type { VectorStoreDefinition } from "../types";
import { WeaviateClient } from "./client";
import { WeaviateVectorStore, weaviatePropertyName } from "./store";

const CONNECTIONS = ["cloud", "local", "custom"];

/** The server's origin from weaviateHost and the connection type. */
export function weaviateOrigin(host: string, connection: string, httpSecure: boolean): string {
  const bad = () => fail("INVALID_FLOW", "weaviate weaviateHost must be a host[:port] or an http(s) URL (e.g. localhost:8080)");
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(host) && !/^https?:\/\//i.test(host)) throw bad();
  const scheme = /^https?:\/\//i.test(host)
    ? ""
    : connection === "cloud" || (connection === "custom" && httpSecure)
      ? "https://"
      : "http://";
  let url: URL;
  try {
    url = new URL(`${scheme}${host}`);
  } catch {
    throw bad();
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw bad();
  if (scheme && connection !== "cloud" && !url.port) url.port = "8080";
  return url.origin;
}

/** weaviateMetadataKeys: a JSON list of property names (whitespace ignored, as Flowise reads it). */
function metadataKeys(value: unknown): string[] | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  let keys = value;
  if (typeof keys === "string") {
    try {
      keys = JSON.parse(keys.replace(/\s/g, ""));
    } catch {
      throw fail("INVALID_FLOW", "weaviateMetadataKeys is not valid JSON");
    }
  }
  if (!Array.isArray(keys) || keys.some((k) => typeof k !== "string"))
    throw fail("INVALID_FLOW", 'weaviateMetadataKeys must be a JSON list of names (e.g. ["source"])');
  // LangChain skips names that are not GraphQL names.
  return keys.filter((k) => /^[_A-Za-z][_0-9A-Za-z]*$/.test(k));
}

export const weaviateVectorStore: VectorStoreDefinition = {
  name: "weaviate",
  build(config, ctx) {
    const connection = str(config.weaviateConnectionType) ?? "cloud";
    if (!CONNECTIONS.includes(connection))
      throw fail("INVALID_FLOW", `weaviate weaviateConnectionType must be one of ${CONNECTIONS.join(", ")}`);
    const host = str(config.weaviateHost) ?? (connection === "local" ? "localhost:8080" : undefined);
    if (!host) throw fail("INVALID_FLOW", "weaviate needs its weaviateHost input (e.g. localhost:8080, or the cluster's REST endpoint)");
    const url = weaviateOrigin(host, connection, bool(config.weaviateHttpSecure, true));
    const policy = checkEndpoint(url, "weaviate weaviateHost", ctx.env);
    const index = str(config.weaviateIndex);
    if (!index) throw fail("INVALID_FLOW", "weaviate needs its weaviateIndex input (the name of a Weaviate collection)");
    if (!/^[A-Za-z][_0-9A-Za-z]*$/.test(index))
      throw fail("INVALID_FLOW", "weaviate weaviateIndex must be a GraphQL name: a letter, then letters, digits or _");
    // Weaviate capitalises class names itself.
    const className = index[0].toUpperCase() + index.slice(1);
    const textKey = str(config.weaviateTextKey) ?? "text";
    // The text is written as a property of that name: Weaviate refuses any other name for one.
    if (weaviatePropertyName(textKey) !== textKey)
      throw fail("INVALID_FLOW", "weaviate weaviateTextKey must be a property name: a letter or _, then letters, digits or _");
    const settings = {
      textKey,
      metadataKeys: metadataKeys(config.weaviateMetadataKeys),
      filter: jsonObjectInput(config.weaviateFilter, "weaviateFilter"),
    };
    if (settings.filter && "where" in settings.filter) settings.filter = jsonObjectInput(settings.filter.where, "weaviateFilter where");
    // An empty filter ({} — or {"where": {}}) is none: Weaviate refuses `where: {}` ("unrecognized operator").
    if (settings.filter && !Object.keys(settings.filter).length) settings.filter = undefined;
    const client = lazily(async () => {
      const credential = ctx.getCredential ? await credentialOf(config, { getCredential: ctx.getCredential }) : {};
      return new WeaviateClient({
        url,
        policy,
        className,
        apiKey: str(credential.weaviateApiKey),
        timeoutMs: num(config.timeout),
        signal: ctx.signal,
      });
    });
    return new WeaviateVectorStore(ctx.embeddings, ctx.db, ctx.namespace, client, settings);
  },
};
