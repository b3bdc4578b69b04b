// An MCP client session for one piece of work (list the tools, or call one), on the official SDK:
// Streamable HTTP, or the older HTTP+SSE transport when the server answers the Streamable HTTP
// initialize with 400/404/405 (the spec's backwards-compatibility rule). Every request goes through
// the outbound policy, each answer is read up to a size cap, and the whole session — connecting
// included — has one deadline and follows the run's abort, so a server that is down or silent ends
// in a clear error, never a hang. The client is always closed afterwards.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { type ErrorCode, httpStatus } from "../../../errors";
import { type EndpointPolicy, type OutboundEnv, OutboundRefused, endpointFetch, outboundFetch } from "../../../lib/outbound";
import { redact } from "../../../lib/redact";
import { Deadline, RunAborted } from "../../../lib/run-control";

/** A remote MCP server: its URL and the headers every request carries (e.g. Authorization). */
export interface McpServerAddress {
  url: string;
  headers: Record<string, string>;
}

/** How long one session (connect + the work) may take. */
export const MCP_SESSION_TIMEOUT_MS = 30_000;
/** The most of one HTTP answer a session reads. */
export const MAX_MCP_RESPONSE_BYTES = 2 * 1024 * 1024;

/** Why a session failed; `code` is what a run refused before its first call fails with. */
export class McpSessionError extends Error {
  constructor(
    message: string,
    readonly code: Extract<ErrorCode, "OUTBOUND_REFUSED" | "UPSTREAM_FAILED" | "TIMEOUT">,
  ) {
    super(message);
    this.name = "McpSessionError";
  }

  /** The HTTP status of its code, for callers that read one. */
  get status(): number {
    return httpStatus(this.code);
  }
}

export interface SessionOptions {
  policy: OutboundEnv;
  /** A deployment's endpoint (a preset's `*_BASE_URL` var or public host): the endpoint rule instead of `policy`. */
  endpoint?: EndpointPolicy;
  /** The run's signal: the session stops with it. */
  signal?: AbortSignal;
  timeoutMs?: number;
}

// Ajv, the SDK's default validator (tool output schemas), compiles with `new Function`: Workers refuse it.
const validator = new CfWorkerJsonSchemaValidator();

/**
 * A body that stops once it passes `max` bytes (a server answering without end cannot fill memory).
 * The SDK reads event streams in the background and only reports their errors, so the overflow
 * also ends the session (`fail`) rather than leaving the request waiting for its answer.
 */
function capped(res: Response, max: number, fail: (err: Error) => void): Response {
  if (!res.body) return res;
  let size = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      size += chunk.byteLength;
      if (size <= max) return controller.enqueue(chunk);
      const err = new Error(`the MCP server's answer is larger than ${max / 1024 / 1024} MB`);
      controller.error(err);
      fail(err);
    },
  });
  return new Response(res.body.pipeThrough(limit), { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** fetch for the SDK's transports: under the outbound policy, capped, stopped by the session's deadline. */
function sessionFetch({ policy, endpoint }: SessionOptions, deadline: Deadline) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const signals = init?.signal ? [init.signal, deadline.signal] : [deadline.signal];
    const req = { ...init, signal: AbortSignal.any(signals) };
    const res = endpoint ? await endpointFetch(String(url), req, endpoint) : await outboundFetch(String(url), req, policy);
    return capped(res, MAX_MCP_RESPONSE_BYTES, (err) => deadline.controller.abort(err));
  };
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url.slice(0, 100);
  }
};

/** Refusals, timeouts and failures as one readable message, the headers' values kept out. */
function sessionError(err: unknown, server: McpServerAddress, deadline: Deadline, timeoutMs: number): Error {
  if (deadline.aborted) return new RunAborted();
  const secrets = Object.values(server.headers);
  const where = `the MCP server at ${hostOf(server.url)}`;
  if (deadline.timedOut) return new McpSessionError(`${where} did not answer within ${Math.round(timeoutMs / 1000)} s`, "TIMEOUT");
  const cause = err instanceof Error && err.cause instanceof OutboundRefused ? err.cause : err;
  if (cause instanceof OutboundRefused) return new McpSessionError(redact(cause.message, secrets), "OUTBOUND_REFUSED");
  const message = err instanceof Error ? err.message : String(err);
  return new McpSessionError(redact(`${where} failed: ${message}`, secrets), "UPSTREAM_FAILED");
}

async function connect(client: Client, server: McpServerAddress, fetch: ReturnType<typeof sessionFetch>): Promise<void> {
  const url = new URL(server.url);
  const requestInit = { headers: server.headers };
  const streamable: Transport = new StreamableHTTPClientTransport(url, {
    fetch,
    requestInit,
    reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
  });
  try {
    await client.connect(streamable);
  } catch (err) {
    // A server of the 2024-11-05 protocol (HTTP+SSE) refuses the POST: connect the old way.
    if (!(err instanceof StreamableHTTPError) || ![400, 404, 405].includes(err.code ?? 0)) throw err;
    await client.close().catch(() => undefined);
    const sse = new SSEClientTransport(url, {
      fetch,
      requestInit,
      eventSourceInit: {
        // set(), not a spread: the SDK already sends requestInit's headers lower-cased, a spread would send them twice.
        fetch: (u, init) => {
          const headers = new Headers(init?.headers);
          for (const [k, v] of Object.entries(server.headers)) headers.set(k, v);
          return fetch(u, { ...init, headers });
        },
      },
    });
    await client.connect(sse);
  }
}

/** Connects, does `work`, closes. Throws McpSessionError (or RunAborted when the run stopped). */
export async function withMcpSession<T>(
  server: McpServerAddress,
  options: SessionOptions,
  work: (client: Client, request: { signal: AbortSignal; timeout: number }) => Promise<T>,
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? MCP_SESSION_TIMEOUT_MS;
  const deadline = new Deadline(timeoutMs, options.signal);
  const client = new Client({ name: "edgeflow", version: "1.0.0" }, { capabilities: {}, jsonSchemaValidator: validator });
  try {
    const fetch = sessionFetch(options, deadline);
    // race(): the SSE transport waits for its `endpoint` event outside any request's timeout.
    await deadline.race(connect(client, server, fetch));
    return await deadline.race(work(client, { signal: deadline.signal, timeout: timeoutMs }));
  } catch (err) {
    throw sessionError(err, server, deadline, timeoutMs);
  } finally {
    deadline.done();
    await client.close().catch(() => undefined);
  }
}
