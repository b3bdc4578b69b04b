// A chatflow's MCP server configuration (Flowise 3.1.4's /mcp-server/{id}): enable with a tool name
// and description, update, disable, rotate the token. The token is 128 random bits as Flowise makes
// it (32 hex characters); only its SHA-256 is stored, so it is shown by POST and refresh alone.
import { eq } from "drizzle-orm";
import type { Db } from "../../env";
import { chatFlow, mcpServer } from "../../db/schema";
import { badRequest, notFound } from "../../errors";
import { constantTimeEqual, sha256Hex, toHex } from "../../lib/crypto";
import { nowIso } from "../../lib/time";
import { McpServerCreate, McpServerUpdate } from "../../schemas/mcp-server";
import type { Deps } from "../deps";

export type McpServerRow = typeof mcpServer.$inferSelect;

export interface McpServerView {
  enabled: boolean;
  token: string;
  toolName: string;
  description: string;
}

const NONE: McpServerView = { enabled: false, token: "", description: "", toolName: "" };

const newToken = () => toHex(crypto.getRandomValues(new Uint8Array(16)));
const mask = (token: string) => `${token.slice(0, 4)}…${token.slice(-4)}`;

const view = (row: McpServerRow, token?: string): McpServerView => ({
  enabled: row.enabled,
  token: token ?? row.tokenMask,
  toolName: row.toolName,
  description: row.description,
});

/** Flowise validates by hand and answers the first failing rule: the same here (a 400 with its message). */
function parsed<T>(
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: Array<{ message: string }> } } },
  body: unknown,
): T {
  const result = schema.safeParse(body ?? {});
  if (!result.success) throw badRequest(result.error.issues[0]?.message ?? "Invalid request body");
  return result.data;
}

async function assertFlow(db: Db, chatflowId: string): Promise<void> {
  const flow = await db.select({ id: chatFlow.id }).from(chatFlow).where(eq(chatFlow.id, chatflowId)).get();
  if (!flow) throw notFound(`Chatflow ${chatflowId} not found`);
}

async function findRow(db: Db, chatflowId: string): Promise<McpServerRow | undefined> {
  await assertFlow(db, chatflowId);
  return db.select().from(mcpServer).where(eq(mcpServer.chatflowId, chatflowId)).get();
}

const missing = (chatflowId: string) => notFound(`MCP server config not found for ID: ${chatflowId}`);

export async function getMcpServerConfig({ db }: Deps<"db">, chatflowId: string): Promise<McpServerView> {
  const row = await findRow(db, chatflowId);
  return row ? view(row) : NONE;
}

/**
 * Enables the server with a new token. An enabled config is answered as it is (its token masked:
 * it is not stored), before the body is looked at — as Flowise does.
 */
export async function createMcpServerConfig(
  { db }: Deps<"db">,
  chatflowId: string,
  body: unknown,
): Promise<{ created: boolean; config: McpServerView }> {
  const existing = await findRow(db, chatflowId);
  if (existing?.enabled) return { created: false, config: view(existing) };
  const input = parsed(McpServerCreate, body);
  const token = newToken();
  const now = nowIso();
  const values = {
    enabled: true,
    tokenHash: await sha256Hex(token),
    tokenMask: mask(token),
    toolName: input.toolName,
    description: input.description,
    updatedDate: now,
  };
  const [row] = await db
    .insert(mcpServer)
    .values({ chatflowId, ...values, createdDate: now })
    .onConflictDoUpdate({ target: mcpServer.chatflowId, set: values })
    .returning();
  return { created: true, config: view(row, token) };
}

export async function updateMcpServerConfig({ db }: Deps<"db">, chatflowId: string, body: unknown): Promise<McpServerView> {
  if (!(await findRow(db, chatflowId))) throw missing(chatflowId);
  const input = parsed(McpServerUpdate, body);
  const [row] = await db
    .update(mcpServer)
    .set({ toolName: input.toolName, description: input.description, enabled: input.enabled, updatedDate: nowIso() })
    .where(eq(mcpServer.chatflowId, chatflowId))
    .returning();
  if (!row) throw missing(chatflowId);
  return view(row);
}

/** Disables (the row stays: PUT {enabled: true} turns it back on with the same token). */
export async function disableMcpServerConfig({ db }: Deps<"db">, chatflowId: string): Promise<{ message: string }> {
  await assertFlow(db, chatflowId);
  await db.update(mcpServer).set({ enabled: false, updatedDate: nowIso() }).where(eq(mcpServer.chatflowId, chatflowId)).run();
  return { message: "MCP server config disabled" };
}

/** A new token; the old one stops working with this write. */
export async function refreshMcpToken({ db }: Deps<"db">, chatflowId: string): Promise<McpServerView> {
  if (!(await findRow(db, chatflowId))) throw missing(chatflowId);
  const token = newToken();
  const [row] = await db
    .update(mcpServer)
    .set({ tokenHash: await sha256Hex(token), tokenMask: mask(token), updatedDate: nowIso() })
    .where(eq(mcpServer.chatflowId, chatflowId))
    .returning();
  if (!row) throw missing(chatflowId);
  return view(row, token);
}

/** Whether `token` is the config's: its hash compared in constant time. */
export async function tokenMatches(row: Pick<McpServerRow, "tokenHash">, token: string): Promise<boolean> {
  // A token of any length is hashed: the comparison's time depends on neither value.
  return constantTimeEqual(await sha256Hex(token), row.tokenHash);
}
