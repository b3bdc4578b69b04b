// Small readers shared by the agentflow runtime and its nodes.
import { ApiError, type ErrorCode } from "../../errors";
import { errorMessage } from "../../lib/error-message";
import { RunAborted } from "../../lib/run-control";

// The readers every layer shares live in src/lib; the agentflow code reads them from here.
export { bool, isObject, nonBlank, num } from "../../lib/inputs";
export { errorMessage };

/** A list input as Flowise saves it: an array, a JSON array string, or "" / null / missing (empty). */
export function listOf<T = Record<string, unknown>>(v: unknown): T[] {
  if (Array.isArray(v)) return v as T[];
  if (typeof v === "string" && v.trim().startsWith("[")) {
    try {
      const parsed = JSON.parse(v);
      if (Array.isArray(parsed)) return parsed as T[];
    } catch {
      // not JSON: no items
    }
  }
  return [];
}

/** lodash-style `get`: "a.b[0].c" or "a.b.0.c". */
export function getPath(value: unknown, path: string): unknown {
  let cur: unknown = value;
  for (const key of path
    .replace(/\[(\w+)\]/g, ".$1")
    .split(".")
    .filter(Boolean)) {
    if (cur === null || cur === undefined || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** Flowise's chat-history `name` of a node: its label, lower-cased, spaces as underscores. */
export const historyName = (label: string | undefined, id: string): string => (label ? label.toLowerCase().replace(/\s/g, "_").trim() : id);

/** True for whatever an aborted run throws. */
export const isAbort = (err: unknown, signal?: AbortSignal): boolean =>
  signal?.aborted === true ||
  err instanceof RunAborted ||
  (err instanceof Error && (err.name === "AbortError" || err.message === "Aborted"));

/** The HTTP status an error deserves (ApiError keeps its own; anything else is the flow's fault at run time: 500 is never right). */
/** The code a node's failure answers with: its own, else a node that failed with what it got. */
export const codeOf = (err: unknown): ErrorCode => (err instanceof ApiError ? err.code : "NODE_FAILED");

/** An error that keeps an ApiError's status while prefixing the message (`Error in LLM node: …`). */
export function prefixed(prefix: string, err: unknown): Error {
  if (err instanceof RunAborted) return err;
  const message = `${prefix}${errorMessage(err)}`;
  return err instanceof ApiError ? new ApiError(err.code, message) : new ApiError("NODE_FAILED", message);
}
