// The `singlestore` vector store entry: Flowise's inputs (host, database, tableName,
// contentColumnName, vectorColumnName, metadataColumnName, topK; credential singleStoreApi with user
// and password). Flowise connects to port 3306 without TLS (mysql2's default); here the host may
// carry a port (host:3307) and `?ssl=true` asks for TLS (SingleStore Helios's certificates are
// signed by its own CA, which a Worker's TLS cannot be given, so TLS is not the default). The host
// is under the outbound policy's endpoint rule: refused, it is a 400 when the flow is built.
import { fail } from "../../../errors";
import { num, str } from "../../../lib/inputs";
import { assertEndpointHostAllowed } from "../../../lib/outbound";
import { tlsOf } from "../../sql/mysql/database";
import { credentialOf } from "../../config";
import { lazily } from "../remote";
import type { VectorStoreDefinition } from "../types";
import { SingleStoreClient } from "./client";
import { SingleStoreVectorStore } from "./store";

const LABEL = "singlestore";

/** A table or column name: letters, digits, _ and $ only (Flowise puts them into SQL unquoted). */
function sqlName(value: unknown, input: string, fallback: string): string {
  const name = str(value)?.trim() || fallback;
  if (!/^[A-Za-z0-9_$]{1,64}$/.test(name))
    throw fail("INVALID_FLOW", `${LABEL} ${input} may hold only letters, digits, _ and $ (at most 64)`);
  return name;
}

/** `host`, `host:port`, `[v6]:port`, each optionally followed by `?ssl=true`. */
function hostOf(value: unknown): { host: string; port: number; tls: boolean } {
  const raw = str(value)
    ?.trim()
    .replace(/^[a-z]+:\/\//i, "");
  if (!raw) throw fail("INVALID_FLOW", `${LABEL} needs its host input (the SingleStore endpoint, e.g. svc-….svc.singlestore.com)`);
  let url: URL;
  try {
    url = new URL(`mysql://${raw}`);
  } catch {
    throw fail("INVALID_FLOW", `${LABEL} host is not a host name (host, host:port or host:port?ssl=true)`);
  }
  if (!url.hostname || (url.pathname && url.pathname !== "/"))
    throw fail("INVALID_FLOW", `${LABEL} host is not a host name (host, host:port or host:port?ssl=true)`);
  return { host: url.hostname.replace(/^\[|\]$/g, ""), port: url.port ? Number(url.port) : 3306, tls: tlsOf(url.searchParams) };
}

export const singleStoreVectorStore: VectorStoreDefinition = {
  name: "singlestore",
  build(config, ctx) {
    const { host, port, tls } = hostOf(config.host);
    const database = str(config.database)?.trim();
    if (!database) throw fail("INVALID_FLOW", `${LABEL} needs its database input (the database holding the table)`);
    assertEndpointHostAllowed(host, port, { field: `${LABEL} host`, env: ctx.env });
    const table = sqlName(config.tableName, "tableName", "embeddings");
    const columns = {
      content: sqlName(config.contentColumnName, "contentColumnName", "content"),
      vector: sqlName(config.vectorColumnName, "vectorColumnName", "vector"),
      metadata: sqlName(config.metadataColumnName, "metadataColumnName", "metadata"),
    };
    const metric = "DOT_PRODUCT" as const; // LangChain's default; Flowise's node offers no other
    const client = lazily(async () => {
      const credential = ctx.getCredential ? await credentialOf(config, { getCredential: ctx.getCredential }) : {};
      const user = str(credential.user);
      if (!user) throw fail("MISSING_CREDENTIAL", `${LABEL} is not configured: connect a singleStoreApi credential with user and password`);
      const password = typeof credential.password === "string" ? credential.password : undefined;
      return new SingleStoreClient({
        host,
        port,
        tls,
        user,
        password,
        database,
        table,
        columns,
        metric,
        timeoutMs: num(config.timeout),
        signal: ctx.signal,
      });
    });
    return new SingleStoreVectorStore(ctx.embeddings, ctx.db, ctx.namespace, client, { metric });
  },
};
