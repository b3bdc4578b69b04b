import { cors } from "hono/cors";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { listVar } from "../env";
import { isWidgetPath } from "../auth/public-paths";

/** Widget paths: any origin. Everything else: only origins listed in CORS_ORIGINS. */
export const corsPolicy: MiddlewareHandler<AppEnv> = cors({
  origin: (origin, c) => {
    if (isWidgetPath(c.req.path)) return origin || "*";
    const allowed = listVar((c.env as AppEnv["Bindings"]).CORS_ORIGINS);
    return allowed.includes("*") || allowed.includes(origin) ? origin : null;
  },
  allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
  allowHeaders: ["content-type", "authorization", "x-request-id"],
  exposeHeaders: ["x-request-id"],
  maxAge: 86400,
});
