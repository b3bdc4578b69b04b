// The `milvus` vector store entry: Flowise's inputs (milvusServerUrl, milvusCollection,
// milvusPartition, milvusTextField, milvusFilter, secure; credential milvusAuth with milvusUser and
// milvusPassword, optional as in Flowise: a server without auth needs none) over Milvus's REST API v2
// (client.ts). The server URL is under the outbound policy: refused, it is a 400 when the flow is
// built. `secure` means https; the TLS file paths (clientPemPath, clientKeyPath, caPemPath,
// serverName) name files on Flowise's disk and are not read; fileUpload is not read either.
import { fail } from "../../../errors";
import { bool, num, str } from "../../../lib/inputs";
import { checkEndpoint } from "../../../lib/outbound";
import { credentialOf } from "../../config";
import { lazily } from "../remote";
import type { VectorStoreDefinition } from "../types";
import { MilvusClient } from "./client";
import { MILVUS_TEXT_FIELD, MilvusVectorStore } from "./store";

/** A collection, partition or field name as Milvus takes it. */
const MILVUS_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,254}$/;

/** The server's origin; Milvus's client takes an address without a scheme too (localhost:19530). */
function serverOrigin(value: unknown, secure: boolean): string {
  const raw = str(value);
  if (!raw) throw fail("INVALID_FLOW", "milvus needs its milvusServerUrl input (e.g. http://localhost:19530)");
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `${secure ? "https" : "http"}://${raw}`);
    if (url.protocol === "http:" || url.protocol === "https:") return `${secure ? "https:" : url.protocol}//${url.host}`;
  } catch {
    // said below
  }
  throw fail("INVALID_FLOW", "milvus milvusServerUrl must be an http(s) URL (e.g. http://localhost:19530)");
}

export const milvusVectorStore: VectorStoreDefinition = {
  name: "milvus",
  build(config, ctx) {
    const url = serverOrigin(config.milvusServerUrl, bool(config.secure));
    const policy = checkEndpoint(url, "milvus milvusServerUrl", ctx.env);
    const collection = str(config.milvusCollection);
    if (!collection) throw fail("INVALID_FLOW", "milvus needs its milvusCollection input (the name of a Milvus collection)");
    // Milvus refuses any other name ("Milvus Limits": naming rules), whichever call names it first.
    if (!MILVUS_NAME.test(collection))
      throw fail("INVALID_FLOW", "milvus milvusCollection must be a Milvus name: a letter or _, then letters, digits or _ (255 at most)");
    const partition = str(config.milvusPartition);
    if (partition !== undefined && !MILVUS_NAME.test(partition))
      throw fail("INVALID_FLOW", "milvus milvusPartition must be a Milvus name: a letter or _, then letters, digits or _ (255 at most)");
    const textField = str(config.milvusTextField) ?? MILVUS_TEXT_FIELD;
    if (!MILVUS_NAME.test(textField))
      throw fail("INVALID_FLOW", "milvus milvusTextField must be a field name: letters, digits and underscores");
    const filter = config.milvusFilter;
    if (filter !== undefined && filter !== null && typeof filter !== "string")
      throw fail("INVALID_FLOW", 'milvus milvusFilter must be a Milvus boolean expression (e.g. source == "a.txt")');
    const client = lazily(async () => {
      const credential = ctx.getCredential ? await credentialOf(config, { getCredential: ctx.getCredential }) : {};
      const user = str(credential.milvusUser);
      const password = typeof credential.milvusPassword === "string" ? credential.milvusPassword : "";
      return new MilvusClient({
        url,
        policy,
        collection,
        token: user ? `${user}:${password}` : undefined,
        timeoutMs: num(config.timeout),
        signal: ctx.signal,
      });
    });
    return new MilvusVectorStore(ctx.embeddings, ctx.db, ctx.namespace, client, {
      textField,
      partition,
      filter: str(filter),
    });
  },
};
