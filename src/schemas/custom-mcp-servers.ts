import { z } from "@hono/zod-openapi";
import { MCP_SERVER_AUTH_TYPES, MCP_SERVER_STATUSES } from "../db/enums";
import { name, text, uuid } from "./common";

/** Header names a server may be sent (RFC 9110 tokens); values are one line each. */
const headers = z
  .record(
    z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,200}$/, "must be an HTTP header name"),
    text(8_000).refine((v) => !/[\r\n\0]/.test(v), "must be one line"),
  )
  .refine((h) => Object.keys(h).length <= 50, "at most 50 headers");

const AuthConfig = z.object({ headers: headers.optional() }).openapi("CustomMcpServerAuthConfig");

const fields = {
  serverUrl: text(4_000).pipe(z.string().trim().min(1, "must not be empty")),
  iconSrc: text(10_000).nullish(),
  color: text(100).nullish(),
  authType: z.enum(MCP_SERVER_AUTH_TYPES).optional(),
  authConfig: AuthConfig.nullish(),
};

export const CustomMcpServerCreate = z.object({ id: uuid().optional(), name: name(), ...fields }).openapi("CustomMcpServerCreate");
export const CustomMcpServerUpdate = z
  .object({ name: name().optional(), ...fields, serverUrl: fields.serverUrl.optional() })
  .openapi("CustomMcpServerUpdate");

const base = {
  id: z.string(),
  name: z.string(),
  /** Its origin, and `/************` when it has a path (which may hold a token). */
  serverUrl: z.string(),
  iconSrc: z.string().nullable(),
  color: z.string().nullable(),
  authType: z.enum(MCP_SERVER_AUTH_TYPES),
  toolCount: z.number().int(),
  status: z.enum(MCP_SERVER_STATUSES),
  createdDate: z.string(),
  updatedDate: z.string(),
};

/** As lists and writes answer it: no tools, no auth values. */
export const CustomMcpServer = z.object(base).openapi("CustomMcpServer");

/** One server: its header names (values masked) and the tools it listed, as JSON text. */
export const CustomMcpServerDetail = z
  .object({
    ...base,
    authConfig: z.object({ headers: z.record(z.string(), z.string()).optional() }).optional(),
    tools: z.string().nullable(),
  })
  .openapi("CustomMcpServerDetail");

/** `POST /custom-mcp-servers/{id}/authorize`: the server as stored, with what it listed. */
export const CustomMcpServerAuthorized = z.object({ ...base, tools: z.string().nullable() }).openapi("CustomMcpServerAuthorized");

export const McpToolDescription = z
  .object({ name: z.string(), description: z.string().optional(), inputSchema: z.record(z.string(), z.unknown()).optional() })
  .passthrough()
  .openapi("McpToolDescription");
