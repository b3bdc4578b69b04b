import { bodyLimit } from "hono/body-limit";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { maxBodyBytes } from "../env";
import { payloadTooLarge } from "../errors";

/** 413 for any body over MAX_BODY_MB, checked on Content-Length and while streaming. */
export const limitBody: MiddlewareHandler<AppEnv> = (c, next) => {
  const maxSize = maxBodyBytes(c.env);
  return bodyLimit({
    maxSize,
    onError: () => {
      throw payloadTooLarge(`Request body is larger than the limit of ${Math.round(maxSize / 1024 / 1024)} MB`);
    },
  })(c, next);
};

/** The MCP endpoints' JSON-RPC bodies: at most 1 MB (Flowise's limit there). */
export const MCP_MAX_BODY_BYTES = 1024 * 1024;

export const limitMcpBody: MiddlewareHandler<AppEnv> = (c, next) =>
  bodyLimit({
    maxSize: MCP_MAX_BODY_BYTES,
    onError: () => {
      throw payloadTooLarge("Request body is larger than the MCP limit of 1 MB");
    },
  })(c, next);

/**
 * A webhook's body: at most 1 MB, the run keeps it whole (the Start node's output in the
 * execution row, the async run's parameters), and a D1 row holds 2 MB.
 */
export const WEBHOOK_MAX_BODY_BYTES = 1024 * 1024;

export const limitWebhookBody: MiddlewareHandler<AppEnv> = (c, next) =>
  bodyLimit({
    maxSize: WEBHOOK_MAX_BODY_BYTES,
    onError: () => {
      throw payloadTooLarge("Request body is larger than the webhook limit of 1 MB");
    },
  })(c, next);
