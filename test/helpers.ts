import { exports } from "cloudflare:workers";

export const ADMIN_KEY = "test-admin-key";
export const BASE = "http://edgeflow.test/api/v1";

type Init = Omit<RequestInit, "body"> & { body?: unknown; token?: string | null; raw?: BodyInit };

function requestOf(method: string, path: string, init: Init): Request {
  const headers = new Headers(init.headers);
  const token = init.token === undefined ? ADMIN_KEY : init.token;
  if (token) headers.set("Authorization", `Bearer ${token}`);
  let body: BodyInit | undefined = init.raw;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  return new Request(`${BASE}${path}`, { ...init, method, headers, body });
}

/**
 * Calls the Worker's real fetch handler. `body` is sent as JSON; `raw` as given;
 * `token` defaults to the admin key, `null` sends no Authorization header.
 */
export async function call(method: string, path: string, init: Init = {}): Promise<Response> {
  return (exports as unknown as { default: Fetcher }).default.fetch(requestOf(method, path, init));
}

/** Calls and parses the JSON answer, failing loudly on a status other than `expected`. */
export async function json<T = any>(method: string, path: string, init: Init = {}, expected = 200): Promise<T> {
  const res = await call(method, path, init);
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** Asserts the API's one error body shape and returns it. */
export async function expectError(
  res: Response,
  status: number,
): Promise<{ statusCode: number; success: false; message: string; stack: unknown }> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
  if (!res.headers.get("content-type")?.includes("application/json"))
    throw new Error(`error is not JSON: ${res.headers.get("content-type")}`);
  const body = JSON.parse(text);
  if (body.statusCode !== status || body.success !== false || typeof body.message !== "string" || !("stack" in body)) {
    throw new Error(`not the error body shape: ${text}`);
  }
  return body;
}

export const uuid = () => crypto.randomUUID();

/** Waits so that the next write gets a later millisecond timestamp (workerd's clock moves on I/O and timers). */
export const sleep = (ms = 5) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Asserts a 4xx answer (never 5xx) carrying the API's one error body shape; returns it. */
export async function expectClientError(
  res: Response,
  label = "",
): Promise<{ statusCode: number; success: false; message: string; stack: unknown }> {
  const text = await res.text();
  if (res.status < 400 || res.status > 499) throw new Error(`${label}: expected a 4xx, got ${res.status}: ${text.slice(0, 300)}`);
  if (!res.headers.get("content-type")?.includes("application/json"))
    throw new Error(`${label}: error is not JSON: ${res.headers.get("content-type")}: ${text.slice(0, 300)}`);
  const body = JSON.parse(text);
  if (body.statusCode !== res.status || body.success !== false || typeof body.message !== "string" || !body.message || !("stack" in body)) {
    throw new Error(`${label}: not the error body shape: ${text.slice(0, 300)}`);
  }
  return body;
}
