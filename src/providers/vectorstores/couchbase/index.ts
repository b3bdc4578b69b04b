// The `couchbase` vector store entry: Flowise's inputs (bucketName, scopeName, collectionName,
// indexName, textKey "text", embeddingKey "embedding", couchbaseMetadataFilter, topK; credential
// couchbaseApi with connectionString, username, password) over Couchbase's Query and Search HTTP
// services (client.ts). LangChain's store searches a scoped index by default (Flowise offers no
// input for it): so here, unless the flow sets scopedIndex false (then the cluster-level index).
// The hosts are the credential's, so the outbound policy checks them when it is read (a 400 at the
// first call).
import { fail } from "../../../errors";
import { bool, num, str } from "../../../lib/inputs";
import { credentialOf } from "../../config";
import { jsonObjectInput, lazily } from "../remote";
import type { VectorStoreDefinition } from "../types";
import { CouchbaseClient } from "./client";
import { CouchbaseVectorStore, readFilter } from "./store";

const LABEL = "couchbase";
/** Bucket names may also hold dots; scope, collection and index names letters, digits, _ - %. */
const NAMES: Array<[input: string, label: string, pattern: RegExp]> = [
  ["bucketName", "Bucket Name", /^[A-Za-z0-9_.%-]{1,100}$/],
  ["scopeName", "Scope Name", /^[A-Za-z0-9_%-]{1,251}$/],
  ["collectionName", "Collection Name", /^[A-Za-z0-9_%-]{1,251}$/],
  ["indexName", "Index Name", /^[A-Za-z0-9_.-]{1,251}$/],
];

function fieldOf(value: unknown, input: string, fallback: string): string {
  const key = str(value) ?? fallback;
  if (key === "metadata" || /[`\0]/.test(key)) throw fail("INVALID_FLOW", `${LABEL} ${input} must be a field name other than metadata`);
  return key;
}

export const couchbaseVectorStore: VectorStoreDefinition = {
  name: "couchbase",
  build(config, ctx) {
    const names: Record<string, string> = {};
    for (const [input, label, pattern] of NAMES) {
      const v = str(config[input]);
      if (!v) throw fail("INVALID_FLOW", `${LABEL} needs its ${label} (${input}): the Couchbase ${label.toLowerCase()} to use`);
      if (!pattern.test(v))
        throw fail("INVALID_FLOW", `${LABEL} ${input} is not a valid Couchbase name: ${JSON.stringify(v.slice(0, 100))}`);
      names[input] = v;
    }
    const textKey = fieldOf(config.textKey, "textKey", "text");
    const embeddingKey = fieldOf(config.embeddingKey, "embeddingKey", "embedding");
    if (textKey === embeddingKey) throw fail("INVALID_FLOW", `${LABEL} textKey and embeddingKey must differ`);
    const { filter, why } = readFilter(jsonObjectInput(config.couchbaseMetadataFilter, "couchbaseMetadataFilter"), true);
    if (why) throw fail("INVALID_FLOW", why);
    const target = {
      bucket: names.bucketName,
      scope: names.scopeName,
      collection: names.collectionName,
      index: names.indexName,
      scopedIndex: bool(config.scopedIndex, true),
    };
    const client = lazily(async () => {
      const credential = ctx.getCredential ? await credentialOf(config, { getCredential: ctx.getCredential }) : {};
      const connectionString = str(credential.connectionString);
      const username = str(credential.username);
      const password = typeof credential.password === "string" ? credential.password : "";
      if (!connectionString || !username || !password)
        throw fail(
          "MISSING_CREDENTIAL",
          `${LABEL} is not configured: connect a couchbaseApi credential with connectionString, username and password`,
        );
      return new CouchbaseClient({
        connectionString,
        username,
        password,
        env: ctx.env,
        target,
        timeoutMs: num(config.timeout),
        signal: ctx.signal,
      });
    });
    return new CouchbaseVectorStore(ctx.embeddings, ctx.db, ctx.namespace, client, { textKey, embeddingKey, filter });
  },
};
