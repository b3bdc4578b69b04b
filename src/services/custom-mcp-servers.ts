// Custom MCP servers (Flowise's Tools page, "MCP Servers"): remote MCP servers registered once, then
// authorized — connected, their tools listed and kept — so the customMcpServerTool node can offer
// those tools to agents. The headers are sealed like a credential's values and never answered; the
// URL is answered as its origin only (its path may hold a token), as Flowise does.
import type { z } from "@hono/zod-openapi";
import { and, desc, eq, getTableColumns } from "drizzle-orm";
import { type StoredMcpServer, McpSessionError, listMcpServerTools } from "../engine";
import { ApiError, badRequest, conflict, notFound } from "../errors";
import { customMcpServer } from "../db/schema";
import type { McpServerAuthType } from "../db/enums";
import { decryptText, encryptText } from "../lib/encryption";
import { type OutboundEnv, assertOutboundAllowed } from "../lib/outbound";
import { nowIso } from "../lib/time";
import type { CustomMcpServerCreate, CustomMcpServerUpdate } from "../schemas/custom-mcp-servers";
import type { PageQueryInput } from "../schemas/common";
import { type Resource, deleteRecord, findRecord, insertRecord, listRecords, updateRecord } from "./crud";
import type { Deps } from "./deps";

const servers: Resource<typeof customMcpServer> = { table: customMcpServer, label: "Custom MCP server", sqlName: "custom_mcp_server" };

type Row = typeof customMcpServer.$inferSelect;
type Headers = Record<string, string>;

/** What the UI sends back for a value it was shown masked: "keep the stored one". */
export const REDACTED = "************";
/** The most of a server's tools/list answer kept (Flowise's CUSTOM_MCP_TOOLS_MAX_BYTES default). */
export const MAX_TOOLS_BYTES = 512 * 1024;
/** How long authorizing (connect + tools/list) may take (Flowise's default). */
export const AUTHORIZE_TIMEOUT_MS = 15_000;

/** Its origin, plus the placeholder when it has a path: a path may carry a token. */
export function maskServerUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.pathname && parsed.pathname !== "/" ? `${parsed.origin}/${REDACTED}` : parsed.origin;
  } catch {
    return REDACTED;
  }
}

/** As lists and writes answer it: no tools, no auth values, the URL masked. */
const present = ({ authConfig: _sealed, tools: _tools, ...rest }: Row) => ({ ...rest, serverUrl: maskServerUrl(rest.serverUrl) });

function secretOf(secret: string | undefined): string {
  if (!secret) throw new ApiError(500, "Credential storage is not configured: set the CREDENTIAL_ENCRYPTION_KEY secret");
  return secret;
}

/** An http(s) URL the outbound policy lets edgeflow reach (400 otherwise), before anything is stored. */
function checkedUrl(raw: string, policy: OutboundEnv): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw badRequest(`Invalid Server URL: "${raw.slice(0, 200)}" is not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw badRequest(`Invalid Server URL: only http and https are allowed, got "${url.protocol.replace(":", "")}"`);
  assertOutboundAllowed(url, policy);
  return url.toString();
}

async function sealHeaders(env: Deps<"env">["env"], headers: Headers): Promise<string> {
  return encryptText(secretOf(env.CREDENTIAL_ENCRYPTION_KEY), JSON.stringify({ headers }));
}

/** The stored headers; none when there are none or they cannot be read (a changed key). */
async function headersOf(env: Deps<"env">["env"], row: Pick<Row, "authType" | "authConfig">): Promise<Headers> {
  if (row.authType !== "CUSTOM_HEADERS" || !row.authConfig) return {};
  try {
    const opened = JSON.parse(await decryptText(secretOf(env.CREDENTIAL_ENCRYPTION_KEY), row.authConfig)) as { headers?: unknown };
    const headers = opened.headers && typeof opened.headers === "object" ? (opened.headers as Record<string, unknown>) : {};
    return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)]));
  } catch (err) {
    if (err instanceof ApiError) throw err;
    return {};
  }
}

const hasHeaders = (headers: Headers | undefined): headers is Headers => !!headers && Object.keys(headers).length > 0;

export async function createMcpServer({ db, env }: Deps<"db" | "env">, input: z.infer<typeof CustomMcpServerCreate>) {
  const { authConfig, authType = "NONE", serverUrl, ...rest } = input;
  const url = checkedUrl(serverUrl, env);
  if (authType === "CUSTOM_HEADERS" && authConfig?.headers) assertNoPlaceholder(authConfig.headers);
  const sealed = authType === "CUSTOM_HEADERS" && hasHeaders(authConfig?.headers) ? await sealHeaders(env, authConfig.headers) : null;
  return present(
    await insertRecord(db, servers, { ...rest, serverUrl: url, authType, authConfig: sealed, status: "PENDING", toolCount: 0 }),
  );
}

// A list leaves out the tools (up to MAX_TOOLS_BYTES each) and the sealed headers.
const { tools: _tools, authConfig: _sealed, ...listColumns } = getTableColumns(customMcpServer);

export function listMcpServers({ db }: Deps<"db">, page: PageQueryInput) {
  return listRecords(db, servers, page, { map: present, columns: listColumns });
}

/** One server: its header names with their values masked, and the tools it listed (JSON text). */
export async function getMcpServer({ db, env }: Deps<"db" | "env">, id: string) {
  const row = await findRecord(db, servers, id);
  const headers = await headersOf(env, row);
  return {
    ...present(row),
    tools: row.tools,
    ...(row.authType === "CUSTOM_HEADERS"
      ? { authConfig: { headers: Object.fromEntries(Object.keys(headers).map((k) => [k, REDACTED])) } }
      : {}),
  };
}

function assertNoPlaceholder(headers: Headers): void {
  for (const [key, value] of Object.entries(headers)) {
    if (value !== REDACTED && value.includes(REDACTED))
      throw badRequest(
        `Header "${key}" value still contains the masked placeholder. Send the full value, or "${REDACTED}" to keep the stored one`,
      );
  }
}

/**
 * A change of address or headers makes the server PENDING again, its tools forgotten: tools listed by
 * one server are never offered as another's. `serverUrl` as it was answered (masked) keeps the stored
 * one, as does a header sent as the placeholder.
 */
export async function updateMcpServer({ db, env }: Deps<"db" | "env">, id: string, patch: z.infer<typeof CustomMcpServerUpdate>) {
  const row = await findRecord(db, servers, id);
  const { authConfig, authType, serverUrl, ...rest } = patch;
  let url: string | undefined;
  if (serverUrl !== undefined && serverUrl !== maskServerUrl(row.serverUrl)) {
    if (serverUrl.includes(REDACTED))
      throw badRequest(
        "Server URL still contains the masked placeholder. Send the full URL, or leave serverUrl out to keep the stored one",
      );
    url = checkedUrl(serverUrl, env);
    if (url === row.serverUrl) url = undefined;
  }
  const nextType: McpServerAuthType = authType ?? row.authType;
  let sealed: string | null | undefined;
  if (nextType === "NONE") sealed = row.authConfig === null ? undefined : null;
  else if (authConfig !== undefined) {
    const stored = await headersOf(env, row);
    const headers: Headers = {};
    for (const [key, value] of Object.entries(authConfig?.headers ?? {})) {
      if (value === REDACTED && key in stored) headers[key] = stored[key];
      else headers[key] = value;
    }
    assertNoPlaceholder(headers);
    const same = JSON.stringify(headers) === JSON.stringify(stored) && nextType === row.authType;
    sealed = same ? undefined : hasHeaders(headers) ? await sealHeaders(env, headers) : null;
  }
  const moved = url !== undefined || sealed !== undefined || nextType !== row.authType;
  const reset = moved ? { status: "PENDING" as const, tools: null, toolCount: 0 } : {};
  return present(await updateRecord(db, servers, id, { ...rest, serverUrl: url, authType, authConfig: sealed, ...reset }));
}

export const deleteMcpServer = ({ db }: Deps<"db">, id: string) => deleteRecord(db, servers, id);

/**
 * Connects and lists the server's tools (at most AUTHORIZE_TIMEOUT_MS), then keeps them: AUTHORIZED,
 * or ERROR with the reason answered. The result is written only if the record is still as it was
 * read (a concurrent edit wins: 409), so tools listed at an old address never land on a new one.
 */
export async function authorizeMcpServer({ db, env }: Deps<"db" | "env">, id: string) {
  const row = await findRecord(db, servers, id);
  const headers = await headersOf(env, row);
  const unchanged = and(eq(customMcpServer.id, id), eq(customMcpServer.updatedDate, row.updatedDate));
  const write = async (values: Partial<Row>) => {
    const [saved] = await db
      .update(customMcpServer)
      .set({ ...values, updatedDate: nowIso() })
      .where(unchanged)
      .returning();
    if (!saved) throw conflict(`Custom MCP server ${id} changed while it was being authorized: authorize it again`);
    return saved;
  };
  let tools: string;
  let count: number;
  try {
    const listed = await listMcpServerTools({ url: row.serverUrl, headers }, { policy: env, timeoutMs: AUTHORIZE_TIMEOUT_MS });
    tools = JSON.stringify({ tools: listed });
    count = listed.length;
  } catch (err) {
    if (!(err instanceof McpSessionError)) throw err;
    await write({ status: "ERROR" });
    throw new ApiError(err.status, `Failed to connect to Custom MCP server: ${err.message}`);
  }
  if (new TextEncoder().encode(tools).byteLength > MAX_TOOLS_BYTES) {
    await write({ status: "ERROR" });
    throw badRequest(`The MCP server listed tools larger than the allowed ${MAX_TOOLS_BYTES / 1024} KB`);
  }
  const saved = await write({ status: "AUTHORIZED", tools, toolCount: count });
  return { ...present(saved), tools: saved.tools };
}

/** The tools it listed when last authorized (none before). */
export async function mcpServerTools({ db }: Deps<"db">, id: string): Promise<unknown[]> {
  const row = await db.select({ tools: customMcpServer.tools }).from(customMcpServer).where(eq(customMcpServer.id, id)).get();
  if (!row) throw notFound(`Custom MCP server ${id} not found`);
  return listedTools(row.tools);
}

/** The tools of an AUTHORIZED server, for the canvas; undefined when the id names none that is. */
export async function authorizedMcpServerTools({ db }: Deps<"db">, id: string): Promise<StoredMcpServer["tools"] | undefined> {
  const row = await db
    .select({ tools: customMcpServer.tools })
    .from(customMcpServer)
    .where(and(eq(customMcpServer.id, id), eq(customMcpServer.status, "AUTHORIZED")))
    .get();
  return row ? listedTools(row.tools) : undefined;
}

function listedTools(text: string | null): StoredMcpServer["tools"] {
  if (!text) return [];
  try {
    const parsed = JSON.parse(text) as { tools?: unknown };
    return Array.isArray(parsed.tools) ? (parsed.tools as StoredMcpServer["tools"]) : [];
  } catch {
    return [];
  }
}

/** The runtime's port: a server as a run uses it (headers decrypted), or undefined. */
export async function mcpServerForRun({ db, env }: Deps<"db" | "env">, id: string): Promise<StoredMcpServer | undefined> {
  const row = await db.select().from(customMcpServer).where(eq(customMcpServer.id, id)).get();
  if (!row) return undefined;
  return { name: row.name, status: row.status, url: row.serverUrl, headers: await headersOf(env, row), tools: listedTools(row.tools) };
}

/** The canvas's Custom MCP Server options: the authorized servers, most recently changed first. */
export async function authorizedMcpServers({ db }: Deps<"db">) {
  const rows = await db
    .select({ id: customMcpServer.id, name: customMcpServer.name, serverUrl: customMcpServer.serverUrl })
    .from(customMcpServer)
    .where(eq(customMcpServer.status, "AUTHORIZED"))
    .orderBy(desc(customMcpServer.updatedDate))
    .all();
  return rows.map((s) => ({ label: s.name, name: s.id, description: maskServerUrl(s.serverUrl) }));
}
