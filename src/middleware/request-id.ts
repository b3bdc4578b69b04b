// The request's id (c.var.requestId): the client's X-Request-Id when it is a plain token of at most
// 255 characters (as Hono's requestId takes it), else a new UUID; sent back on the response. Set on
// the route's response once it is made (response-headers.ts), so a route that answers a Response of
// its own (a stream) carries it too without Hono merging prepared headers into a copy.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { editResponseHeaders } from "./response-headers";

const HEADER = "X-Request-Id";

export const requestId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const given = c.req.header(HEADER);
  const id = given && given.length <= 255 && !/[^\w\-=]/.test(given) ? given : crypto.randomUUID();
  c.set("requestId", id);
  await next();
  editResponseHeaders(c, (headers) => headers.set(HEADER, id));
};
