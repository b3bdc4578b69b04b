// Every request body under its route's limit, checked on Content-Length and while it streams
// (chunked bodies have none): over it, the 413 naming the limit, after the rest of the body has been
// drained so that the client reads the answer instead of a reset connection (lib/counted-body.ts).
// The body is never buffered here: uploads stream on to R2 as they arrive.
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { maxBodyBytes } from "../env";
import { payloadTooLarge } from "../errors";
import { type BodyLimit, CountedBody, DRAIN_MAX_BYTES, drain } from "../lib/counted-body";

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

/** Any route's body: MAX_BODY_MB. */
export const defaultBodyLimit = (env: object): BodyLimit => ({
  maxBytes: maxBodyBytes(env),
  message: `Request body is larger than the limit of ${mb(maxBodyBytes(env))} MB (MAX_BODY_MB)`,
});

/** The MCP endpoints' JSON-RPC bodies: at most 1 MB (Flowise's limit there). */
export const MCP_MAX_BODY_BYTES = 1024 * 1024;
export const MCP_BODY_LIMIT: BodyLimit = { maxBytes: MCP_MAX_BODY_BYTES, message: "Request body is larger than the MCP limit of 1 MB" };

/**
 * A webhook's body: at most 1 MB, the run keeps it whole (the Start node's output in the
 * execution row, the async run's parameters), and a D1 row holds 2 MB.
 */
export const WEBHOOK_MAX_BODY_BYTES = 1024 * 1024;
export const WEBHOOK_BODY_LIMIT: BodyLimit = {
  maxBytes: WEBHOOK_MAX_BODY_BYTES,
  message: "Request body is larger than the webhook limit of 1 MB",
};

/** A client that waits for `100 Continue` has sent nothing yet: it can be answered without draining. */
const awaitsContinue = (c: Context<AppEnv>) => (c.req.header("expect") ?? "").toLowerCase() === "100-continue";

/** The body limit `limitOf` gives each request. */
export const limitBody =
  (limitOf: (c: Context<AppEnv>) => BodyLimit): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const body = c.req.raw.body;
    if (!body) return next();
    const limit = limitOf(c);
    const declared = c.req.raw.headers.has("transfer-encoding") ? Number.NaN : Number(c.req.header("content-length"));
    if (declared > limit.maxBytes) {
      if (!awaitsContinue(c) && declared <= DRAIN_MAX_BYTES) await drain(body.getReader());
      throw payloadTooLarge(limit.message);
    }
    // A declared length within the limit: HTTP's framing holds the body to it, so there is nothing
    // to count (and a JSON prediction's body is not wrapped in a second stream on its hot path).
    if (Number.isFinite(declared)) return next();
    const counted = new CountedBody(body, limit);
    c.req.raw = new Request(c.req.raw, { body: counted.stream, signal: c.req.raw.signal });
    await next();
    // Whatever the handler made of a body cut at the limit (a parse error), or answered without
    // reading it all (a 401): a body over the limit is this 413 — unless the handler refused it
    // with a 413 of its own (a file over its limit) — and it goes out once the body was read to its end.
    const cut = counted.over;
    if ((await counted.finish()) && (cut || c.res.status !== 413)) throw payloadTooLarge(limit.message);
  };
