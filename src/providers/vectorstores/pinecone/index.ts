// The `pinecone` vector store entry: Flowise's inputs (pineconeIndex, pineconeNamespace,
// pineconeMetadataFilter; credential pineconeApi with pineconeApiKey), plus pineconeIndexHost to
// skip describe_index. The control plane is PINECONE_BASE_URL (default https://api.pinecone.io).
// Both under the outbound policy: a refused pineconeIndexHost is a 400 when the flow is built.
import { fail } from "../../../errors";
import { num, str } from "../../../lib/inputs";
import { checkEndpoint } from "../../../lib/outbound";
import { credentialOf } from "../../config";
import { lazily } from "../remote";
import type { VectorStoreDefinition } from "../types";
import { INDEX_HOST_FIELD, PINECONE_CONTROL_PLANE, PineconeClient, withScheme } from "./client";
import { PineconeVectorStore, filterOf } from "./store";

export const pineconeVectorStore: VectorStoreDefinition = {
  name: "pinecone",
  build(config, ctx) {
    const index = str(config.pineconeIndex);
    if (!index) throw fail("INVALID_FLOW", "pinecone needs its pineconeIndex input (the name of a Pinecone index)");
    const filter = filterOf(config.pineconeMetadataFilter);
    const controlPlane = (str(ctx.env.PINECONE_BASE_URL) ?? PINECONE_CONTROL_PLANE).replace(/\/+$/, "");
    const controlPlaneField = str(ctx.env.PINECONE_BASE_URL) ? "PINECONE_BASE_URL" : "Pinecone's control plane";
    const host = str(config.pineconeIndexHost);
    if (host) checkEndpoint(withScheme(host, controlPlane), INDEX_HOST_FIELD, ctx.env);
    const client = lazily(async () => {
      const credential = ctx.getCredential ? await credentialOf(config, { getCredential: ctx.getCredential }) : {};
      const apiKey = str(credential.pineconeApiKey);
      if (!apiKey) throw fail("MISSING_CREDENTIAL", "pinecone is not configured: connect a pineconeApi credential with pineconeApiKey");
      return new PineconeClient({
        apiKey,
        controlPlane,
        controlPlaneField,
        env: ctx.env,
        index,
        host,
        timeoutMs: num(config.timeout),
        signal: ctx.signal,
      });
    });
    return new PineconeVectorStore(ctx.embeddings, ctx.db, ctx.namespace, client, str(config.pineconeNamespace) ?? "", filter);
  },
};
