import { cors } from "hono/cors";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { listVar } from "../env";
import { BOOKMARK_HEADER } from "../lib/d1-session";
import { isMcpPath, isWidgetPath, mcpOriginAllowed } from "../auth/public-paths";
import { editResponseHeaders } from "./response-headers";

type OriginOf = (origin: string, c: Context<AppEnv>) => string | null;

interface Policy {
  origin: OriginOf;
  allowMethods: string[];
  allowHeaders: string[];
  exposeHeaders: string[];
}

/**
 * A policy's middleware: a preflight (OPTIONS) answered by Hono's cors; any other request's answer
 * given the same headers Hono's cors would give it, set on the route's response once it is made.
 * Hono's sets them on a placeholder response before the route runs, then copies the route's
 * response to merge them in, and copies it again for `Vary`: three responses more per request,
 * about 0.2 ms of a prediction's CPU.
 */
function crossOrigin(policy: Policy): MiddlewareHandler<AppEnv> {
  const preflight = cors({ ...policy, maxAge: 86400 });
  const exposed = policy.exposeHeaders.join(",");
  return async (c, next) => {
    if (c.req.method === "OPTIONS") return preflight(c, next);
    await next();
    const allowed = policy.origin(c.req.header("origin") ?? "", c);
    editResponseHeaders(c, (headers) => {
      headers.append("Vary", "Origin");
      if (allowed) headers.set("Access-Control-Allow-Origin", allowed);
      headers.set("Access-Control-Expose-Headers", exposed);
    });
  };
}

/** The MCP endpoints: only origins listed in MCP_CORS_ORIGINS, with the MCP transport's headers. */
const mcpCors = crossOrigin({
  origin: (origin, c) => (origin && mcpOriginAllowed(origin, listVar(c.env.MCP_CORS_ORIGINS)) ? origin : null),
  allowMethods: ["GET", "POST", "DELETE", "OPTIONS"],
  allowHeaders: ["content-type", "authorization", "accept", "mcp-protocol-version", "mcp-session-id", "last-event-id"],
  exposeHeaders: ["mcp-session-id", "mcp-protocol-version"],
});

const apiCors = crossOrigin({
  origin: (origin, c) => {
    if (isWidgetPath(c.req.path)) return origin || "*";
    const allowed = listVar(c.env.CORS_ORIGINS);
    return allowed.includes("*") || allowed.includes(origin) ? origin : null;
  },
  allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
  // x-d1-bookmark: a browser client may read its own writes too (lib/d1-session.ts).
  allowHeaders: ["content-type", "authorization", "x-request-id", BOOKMARK_HEADER],
  exposeHeaders: ["x-request-id", BOOKMARK_HEADER],
});

/** Widget paths: any origin. MCP paths: MCP_CORS_ORIGINS. Everything else: only origins listed in CORS_ORIGINS. */
export const corsPolicy: MiddlewareHandler<AppEnv> = (c, next) => (isMcpPath(c.req.path) ? mcpCors(c, next) : apiCors(c, next));
