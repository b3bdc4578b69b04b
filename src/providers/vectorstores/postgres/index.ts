// The `postgres` vector store entry (pgvector): Flowise's inputs (host, database, port, ssl,
// tableName, distanceStrategy, batchSize, pgMetadataFilter; schemaName as Flowise's driver reads
// it; credential PostgresApi with user and password). The host and port are under the outbound
// policy's endpoint rule: refused, it is a 400 when the flow is built. Flowise's additionalConfig
// (TypeORM connection options) and contentColumnName (its disabled PGVector driver's) are not read.
import { fail } from "../../../errors";
import { bool, num, str } from "../../../lib/inputs";
import { assertEndpointHostAllowed } from "../../../lib/outbound";
import { credentialOf } from "../../config";
import { jsonObjectInput, lazily } from "../remote";
import type { VectorStoreDefinition } from "../types";
import { PgVectorClient } from "./client";
import { PostgresVectorStore } from "./store";

const OPERATORS: Record<string, string> = { cosine: "<=>", innerProduct: "<#>", euclidean: "<->" };

/** Flowise's table and schema names: trimmed, lower case, blanks as underscores, letters, digits and _ only. */
function sqlName(value: string, input: string): string {
  const name = value.trim().toLowerCase().replace(/\s+/g, "_");
  if (!/^[a-z0-9_]+$/.test(name)) throw fail("INVALID_FLOW", `postgres ${input} may hold only letters, digits and underscores`);
  return name;
}

function portOf(value: unknown): number {
  const port = num(value) ?? 5432;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw fail("INVALID_FLOW", "postgres port must be a whole number from 1 to 65535");
  return port;
}

export const postgresVectorStore: VectorStoreDefinition = {
  name: "postgres",
  build(config, ctx) {
    const host = str(config.host);
    if (!host) throw fail("INVALID_FLOW", "postgres needs its host input (the Postgres server's host name, e.g. db.example.com)");
    const database = str(config.database);
    if (!database) throw fail("INVALID_FLOW", "postgres needs its database input (the name of the database holding the table)");
    const port = portOf(config.port);
    const policy = { field: "postgres host", env: ctx.env };
    assertEndpointHostAllowed(host, port, policy);
    const table = sqlName(str(config.tableName) ?? "documents", "tableName");
    const schemaName = str(config.schemaName);
    const tablePath = schemaName ? `"${sqlName(schemaName, "schemaName")}"."${table}"` : `"${table}"`;
    const strategy = str(config.distanceStrategy) ?? "cosine";
    const operator = OPERATORS[strategy];
    if (!operator) throw fail("INVALID_FLOW", `postgres distanceStrategy must be one of ${Object.keys(OPERATORS).join(", ")}`);
    const batchSize = num(config.batchSize);
    if (batchSize !== undefined && (!Number.isInteger(batchSize) || batchSize < 1))
      throw fail("INVALID_FLOW", "postgres batchSize must be a whole number of at least 1");
    const filter = jsonObjectInput(config.pgMetadataFilter, "pgMetadataFilter");
    const client = lazily(async () => {
      const credential = ctx.getCredential ? await credentialOf(config, { getCredential: ctx.getCredential }) : {};
      const user = str(credential.user);
      if (!user) throw fail("MISSING_CREDENTIAL", "postgres is not configured: connect a PostgresApi credential with user and password");
      return new PgVectorClient({
        host,
        port,
        database,
        user,
        password: typeof credential.password === "string" ? credential.password : undefined,
        ssl: bool(config.ssl),
        tablePath,
        operator,
        timeoutMs: num(config.timeout),
        signal: ctx.signal,
      });
    });
    return new PostgresVectorStore(ctx.embeddings, ctx.db, ctx.namespace, client, { operator, filter, batchSize });
  },
};
