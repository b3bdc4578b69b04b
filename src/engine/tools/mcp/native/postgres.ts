// postgreSQLMCP: @modelcontextprotocol/server-postgres (0.6.2, the version Flowise pins) natively.
// Its one tool, `query`, runs the SQL in a READ ONLY transaction and answers the rows as JSON; here
// over edgeflow's Postgres client (Workers TCP socket, providers/sql/postgres.ts): the credential's
// URL under the outbound policy (a private host is a 400 at build), one connection per call, the
// statement under the SQL chain's read-only rule too (one statement; a statement timeout; at most
// MAX_ROWS rows). The database's refusal is the tool's error text to the model, as the server's is.
import { ApiError, fail } from "../../../../errors";
import { RunAborted } from "../../../../lib/run-control";
import { errorMessage } from "../../../../lib/error-message";
import { postgresDatabase } from "../../../../providers/sql/postgres";
import { credentialOf } from "../../../../providers/config";
import { str } from "../../../core/inputs";
import type { NativeMcpServer } from "./native";
import { textResult } from "./native";

const MAX_ROWS = 1000;
const INPUT = "PostgresUrl credential's postgresUrl";

export const postgresServer: NativeMcpServer = {
  node: "postgreSQLMCP",
  tools: [
    {
      name: "query",
      description: "Run a read-only SQL query",
      inputSchema: { type: "object", properties: { sql: { type: "string" } } },
    },
  ],
  async open(inputs, { ctx, label }) {
    const cred = await credentialOf(inputs, { getCredential: ctx.getCredential });
    // Flowise's getCredentialParam: the credential's field, else an input of the same name
    const url = str(cred.postgresUrl) ?? str(inputs.postgresUrl);
    if (!url)
      throw fail("MISSING_CREDENTIAL", `${label} needs a PostgresUrl credential with postgresUrl (postgresql://user:password@host/db)`);
    const env = ctx.runtime.providers;
    await postgresDatabase(url, env, { node: label, input: INPUT }).close(); // the URL checked now: a malformed or refused one is a 400
    return async (_tool, args) => {
      const sql = typeof args.sql === "string" ? args.sql : "";
      const db = postgresDatabase(url, env, { node: label, input: INPUT });
      try {
        const { rows } = await db.query(sql, { maxRows: MAX_ROWS, allowWrites: false });
        return textResult(rows);
      } catch (err) {
        if (err instanceof RunAborted) throw err;
        return textResult(err instanceof ApiError ? err.message : errorMessage(err), true);
      } finally {
        await db.close();
      }
    };
  },
};
