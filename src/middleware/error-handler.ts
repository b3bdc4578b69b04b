import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../env";
import { isDevelopment } from "../env";
import { ApiError, ValidationError, errorBody, httpStatus } from "../errors";
import { isTooBig, isUniqueViolation } from "../db/errors";
import { errorText, redact } from "../lib/redact";
import { workerSecretValues } from "../lib/secrets";
import { isOpenAIPath, openAIErrorBody } from "../services/openai/errors";

function classify(err: unknown, c: Context<AppEnv>): { status: number; message: string } {
  if (err instanceof ValidationError) return { status: c.get("validationStatus") ?? 400, message: err.message };
  if (err instanceof ApiError) return { status: httpStatus(err.code), message: err.message };
  if (err instanceof HTTPException) return { status: err.status, message: err.message || "Request failed" };
  if (isTooBig(err)) return { status: 413, message: "A value in the request is too large to store" };
  if (isUniqueViolation(err, "")) return { status: 409, message: "A record with the same unique value already exists" };
  return { status: 500, message: `Internal server error while handling ${c.req.method} ${c.req.path}` };
}

/**
 * The single place an error becomes a response: always the JSON error body, its message (and the
 * log line) scrubbed of the worker's secrets and of anything shaped like a credential — the last
 * line behind the scrubbing where provider errors are made.
 */
export function handleError(err: unknown, c: Context<AppEnv>): Response {
  const { status, message } = classify(err, c);
  const secrets = workerSecretValues(c.env);
  // A 501 is a decided answer (what edgeflow does not do), not a fault: no error log line.
  if (status >= 500 && status !== 501) {
    console.error(`[${c.get("requestId")}] ${c.req.method} ${c.req.path}: ${redact(errorText(err), secrets)}`);
  }
  // The OpenAI-compatible API answers every error in OpenAI's body, so its clients raise them as such.
  if (isOpenAIPath(c.req.path)) return c.json(openAIErrorBody(status, redact(message, secrets), err), status as 400);
  const stack = isDevelopment(c.env) && err instanceof Error && err.stack ? redact(err.stack, secrets) : undefined;
  const extra = err instanceof ApiError ? err.extra : undefined;
  return c.json(errorBody(status, redact(message, secrets), stack, extra), status as 400);
}

export function handleNotFound(c: Context<AppEnv>): Response {
  if (isOpenAIPath(c.req.path)) return c.json(openAIErrorBody(404, `Route ${c.req.method} ${c.req.path} not found`), 404);
  return c.json(errorBody(404, `Route ${c.req.method} ${c.req.path} not found`), 404);
}
