// The `upstash` vector store entry (Upstash Vector): Flowise's inputs (upstashMetadataFilter, in
// Upstash's filter language; credential upstashVectorApi with UPSTASH_VECTOR_REST_URL and
// UPSTASH_VECTOR_REST_TOKEN). The URL is the credential's, so the outbound policy checks it when
// the credential is read (a refused one is a 400 at the first call).
import { fail } from "../../../errors";
import { num, str } from "../../../lib/inputs";
import { checkEndpoint } from "../../../lib/outbound";
import { credentialOf } from "../../config";
import { lazily } from "../remote";
import type { VectorStoreDefinition } from "../types";
import { UpstashVectorClient } from "./client";
import { UpstashVectorStore } from "./store";

const URL_FIELD = "upstashVectorApi credential UPSTASH_VECTOR_REST_URL";

export const upstashVectorStore: VectorStoreDefinition = {
  name: "upstash",
  build(config, ctx) {
    const filter = config.upstashMetadataFilter;
    if (filter !== undefined && filter !== null && typeof filter !== "string")
      throw fail("INVALID_FLOW", "upstash upstashMetadataFilter must be text in Upstash's filter language (e.g. genre = 'fiction')");
    const client = lazily(async () => {
      const credential = ctx.getCredential ? await credentialOf(config, { getCredential: ctx.getCredential }) : {};
      const url = str(credential.UPSTASH_VECTOR_REST_URL)?.replace(/\/+$/, "");
      const token = str(credential.UPSTASH_VECTOR_REST_TOKEN);
      if (!url || !token)
        throw fail(
          "MISSING_CREDENTIAL",
          "upstash is not configured: connect an upstashVectorApi credential with UPSTASH_VECTOR_REST_URL and UPSTASH_VECTOR_REST_TOKEN",
        );
      if (!/^https?:\/\//i.test(url)) throw fail("INVALID_FLOW", `${URL_FIELD} must be an http(s) URL`);
      return new UpstashVectorClient({
        url,
        policy: checkEndpoint(url, URL_FIELD, ctx.env),
        token,
        timeoutMs: num(config.timeout),
        signal: ctx.signal,
      });
    });
    return new UpstashVectorStore(ctx.embeddings, ctx.db, ctx.namespace, client, str(filter));
  },
};
