import { cors } from "hono/cors";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { listVar } from "../env";
import { BOOKMARK_HEADER } from "../lib/d1-session";
import { isMcpPath, isWidgetPath, mcpOriginAllowed } from "../auth/public-paths";

/** The MCP endpoints: only origins listed in MCP_CORS_ORIGINS, with the MCP transport's headers. */
const mcpCors: MiddlewareHandler<AppEnv> = cors({
  origin: (origin, c) => (origin && mcpOriginAllowed(origin, listVar((c.env as AppEnv["Bindings"]).MCP_CORS_ORIGINS)) ? origin : null),
  allowMethods: ["GET", "POST", "DELETE", "OPTIONS"],
  allowHeaders: ["content-type", "authorization", "accept", "mcp-protocol-version", "mcp-session-id", "last-event-id"],
  exposeHeaders: ["mcp-session-id", "mcp-protocol-version"],
  maxAge: 86400,
});

const apiCors: MiddlewareHandler<AppEnv> = cors({
  origin: (origin, c) => {
    if (isWidgetPath(c.req.path)) return origin || "*";
    const allowed = listVar((c.env as AppEnv["Bindings"]).CORS_ORIGINS);
    return allowed.includes("*") || allowed.includes(origin) ? origin : null;
  },
  allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
  // x-d1-bookmark: a browser client may read its own writes too (lib/d1-session.ts).
  allowHeaders: ["content-type", "authorization", "x-request-id", BOOKMARK_HEADER],
  exposeHeaders: ["x-request-id", BOOKMARK_HEADER],
  maxAge: 86400,
});

/** Widget paths: any origin. MCP paths: MCP_CORS_ORIGINS. Everything else: only origins listed in CORS_ORIGINS. */
export const corsPolicy: MiddlewareHandler<AppEnv> = (c, next) => (isMcpPath(c.req.path) ? mcpCors(c, next) : apiCors(c, next));
