// The `Astra` vector store entry (DataStax Astra DB): Flowise's inputs (astraCollection,
// vectorDimension, similarityMetric; credential AstraDBApi with applicationToken and dbEndPoint) over
// the Data API (client.ts), keyspace default_keyspace as Flowise's client uses. The endpoint is the
// credential's, so the outbound policy checks it when the credential is read (a 400 at the first
// call). vectorDimension is not read: a missing collection is made with the vectors' own dimension.
import { fail } from "../../../errors";
import { num, str } from "../../../lib/inputs";
import { checkEndpoint } from "../../../lib/outbound";
import { credentialOf } from "../../config";
import { lazily } from "../remote";
import type { VectorStoreDefinition } from "../types";
import { AstraClient } from "./client";
import { AstraVectorStore } from "./store";

const METRICS = ["cosine", "euclidean", "dot_product"];
const FIELD = "AstraDBApi credential dbEndPoint";

/** The database's API endpoint: origin and path (Astra's is https://<db-id>-<region>.apps.astra.datastax.com). */
function endpointOf(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.protocol === "http:" || u.protocol === "https:") return `${u.origin}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    // said below
  }
  throw fail("INVALID_FLOW", `${FIELD} must be an http(s) URL (e.g. https://<db-id>-<region>.apps.astra.datastax.com)`);
}

export const astraVectorStore: VectorStoreDefinition = {
  name: "Astra",
  build(config, ctx) {
    const metric = str(config.similarityMetric) ?? "cosine";
    if (!METRICS.includes(metric)) throw fail("INVALID_FLOW", `Astra similarityMetric must be one of ${METRICS.join(", ")}`);
    const client = lazily(async () => {
      const credential = ctx.getCredential ? await credentialOf(config, { getCredential: ctx.getCredential }) : {};
      const token = str(credential.applicationToken);
      const endpoint = str(credential.dbEndPoint);
      if (!token || !endpoint)
        throw fail("MISSING_CREDENTIAL", "Astra is not configured: connect an AstraDBApi credential with applicationToken and dbEndPoint");
      const url = endpointOf(endpoint);
      const collection = str(config.astraCollection) ?? str(credential.collectionName) ?? "flowise_test";
      // The Data API's collection names (UNSUPPORTED_SCHEMA_NAME otherwise, at every write).
      if (!/^[A-Za-z0-9_]{1,48}$/.test(collection))
        throw fail("INVALID_FLOW", "Astra astraCollection must be an Astra collection name: letters, digits and _ (48 at most)");
      return new AstraClient({
        url,
        policy: checkEndpoint(url, FIELD, ctx.env),
        collection,
        token,
        timeoutMs: num(config.timeout),
        signal: ctx.signal,
      });
    });
    return new AstraVectorStore(ctx.embeddings, ctx.db, ctx.namespace, client, { metric });
  },
};
