// The `supabase` vector store entry: Flowise's inputs (supabaseProjUrl, tableName, queryName,
// supabaseMetadataFilter, supabaseRPCFilter; credential supabaseApi with supabaseApiKey). The
// project URL is under the outbound policy: refused, it is a 400 when the flow is built.
import { fail } from "../../../errors";
import { num, str } from "../../../lib/inputs";
import { checkEndpoint } from "../../../lib/outbound";
import { credentialOf } from "../../config";
import { jsonObjectInput, lazily } from "../remote";
import type { VectorStoreDefinition } from "../types";
import { SupabaseClient } from "./client";
import { rpcFilterParams } from "./rpc-filter";
import { SupabaseVectorStore } from "./store";

function projectUrl(value: unknown): string {
  const raw = str(value);
  if (!raw) throw fail("INVALID_FLOW", "supabase needs its supabaseProjUrl input (e.g. https://xyz.supabase.co)");
  try {
    const url = new URL(raw);
    if (url.protocol === "http:" || url.protocol === "https:") return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
  } catch {
    // said below
  }
  throw fail("INVALID_FLOW", "supabase supabaseProjUrl must be an http(s) URL (e.g. https://xyz.supabase.co)");
}

export const supabaseVectorStore: VectorStoreDefinition = {
  name: "supabase",
  build(config, ctx) {
    const url = projectUrl(config.supabaseProjUrl);
    const policy = checkEndpoint(url, "supabase supabaseProjUrl", ctx.env);
    // LangChain's defaults when the inputs are empty.
    const table = str(config.tableName) ?? "documents";
    const queryName = str(config.queryName) ?? "match_documents";
    const metadata = jsonObjectInput(config.supabaseMetadataFilter, "supabaseMetadataFilter");
    const rpcText = str(config.supabaseRPCFilter);
    const rpc = rpcText ? rpcFilterParams(rpcText) : undefined;
    const client = lazily(async () => {
      const credential = ctx.getCredential ? await credentialOf(config, { getCredential: ctx.getCredential }) : {};
      const apiKey = str(credential.supabaseApiKey);
      if (!apiKey) throw fail("MISSING_CREDENTIAL", "supabase is not configured: connect a supabaseApi credential with supabaseApiKey");
      return new SupabaseClient({ url, policy, apiKey, table, queryName, timeoutMs: num(config.timeout), signal: ctx.signal });
    });
    return new SupabaseVectorStore(ctx.embeddings, ctx.db, ctx.namespace, client, { metadata, rpc });
  },
};
