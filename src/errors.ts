/**
 * The closed list of error codes, each with the HTTP status it answers: the one table the HTTP layer
 * (the error handler, stream error frames, anything that answers a status) maps codes through. Code
 * below the services (engine, providers, sandbox, lib) names what went wrong and never a status;
 * services and routes use the generic codes through the helpers below. The code stays out of the
 * answer's body (API.md "Errors" fixes its fields); it is for the code that catches and logs.
 */
export const ERROR_STATUS = {
  // Generic: what a request, a record or the server did wrong.
  /** The request is malformed: its body, a path id, a query parameter or a header. */
  BAD_REQUEST: 400,
  /** A rule only the service can check fails (a referenced record is missing): 400, or the endpoint's 422. */
  VALIDATION: 400,
  /** No credential, an unknown or revoked key, a bad token or session. */
  UNAUTHORIZED: 401,
  /** The caller is known but may not do this (scope, origin, role). */
  FORBIDDEN: 403,
  /** The addressed record does not exist. */
  NOT_FOUND: 404,
  /** The endpoint (a webhook's Start node) takes another method. */
  METHOD_NOT_ALLOWED: 405,
  /** The record's state forbids it: an id in use, a lost lease, a concurrent write. */
  CONFLICT: 409,
  /** The request's body or upload is over its configured limit. */
  PAYLOAD_TOO_LARGE: 413,
  /** A content type the endpoint does not take. */
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** Well-formed JSON failing its schema on the endpoints whose contract names a validation exception. */
  UNPROCESSABLE: 422,
  /** A rate limit is exceeded (a chatflow's, or repeated failed sign-ins). */
  RATE_LIMITED: 429,
  /** The run's caller stopped it (client gone, PUT /chatmessage/abort). */
  ABORTED: 499,
  /** A real fault of the server or of its configuration; the message says what failed. */
  INTERNAL: 500,
  /** A feature this deployment does not offer (a missing binding, a load method not built yet). */
  NOT_IMPLEMENTED: 501,
  /** An outside service a node uses (vector store, database, Redis, HTTP endpoint, MCP server) failed or answered nonsense. */
  UPSTREAM_FAILED: 502,
  /** Something did not finish within its time limit: the run itself, or an outside service it called. */
  TIMEOUT: 504,

  // The engine's own: why a flow could not run. Providers, the sandbox and lib use them too.
  /** The flow cannot run as drawn: malformed flowData, a cycle, a missing or wrong connection or setting, a record it names is gone. */
  INVALID_FLOW: 400,
  /** The flow uses a node, or names a model, tool, store, embedding, splitter or database kind, edgeflow does not have. */
  UNKNOWN_NODE: 400,
  /** A node needs a credential (or the deployment a binding) that is not connected, or lacks or garbles a field. */
  MISSING_CREDENTIAL: 400,
  /** What the run was given does not fit: question with form, a resume, humanInput, stopNodeId, a file, moderation. */
  INVALID_INPUT: 400,
  /** A node failed at run time with what it got: a tool, a splitter, data it cannot use, the run's step limit. */
  NODE_FAILED: 400,
  /** The flow's own JavaScript (custom function, custom tool) does not parse, threw, or hit a sandbox limit. */
  SANDBOX_FAILED: 400,
  /** The outbound policy refuses what a flow asked to reach: a URL's address, scheme or host, or a database binding. */
  OUTBOUND_REFUSED: 400,
  /** The work of a run or an upload passed a configured limit (file size, extracted text, pages). */
  LIMIT_EXCEEDED: 413,
  /** A model (chat, LLM, embeddings) failed, refused, or answered what the run cannot use. */
  MODEL_FAILED: 502,
  /** A model did not answer within its time limit. */
  MODEL_TIMEOUT: 504,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The HTTP status a code answers. */
export const httpStatus = (code: ErrorCode): number => ERROR_STATUS[code];

/**
 * The code of a bare status (services and routes that still pass one): the first, generic, code
 * with that status; a status outside the table is an INTERNAL fault from 500 up, else a BAD_REQUEST.
 */
export function codeOfStatus(status: number): ErrorCode {
  for (const [code, s] of Object.entries(ERROR_STATUS)) if (s === status) return code as ErrorCode;
  return status >= 500 ? "INTERNAL" : "BAD_REQUEST";
}

/** The one error type edgeflow throws; app.onError turns it into the JSON body. */
export class ApiError extends Error {
  readonly code: ErrorCode;

  /** `extra`: fields the error body carries besides the usual ones (Flowise's `retry` on an expired session). */
  constructor(
    code: ErrorCode | number,
    message: string,
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "ApiError";
    this.code = typeof code === "number" ? codeOfStatus(code) : code;
  }

  /** The HTTP status of its code (read-only: the table decides it). */
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** The error of a code, for `throw fail("UNKNOWN_NODE", "…")`. */
export const fail = (code: ErrorCode, message: string) => new ApiError(code, message);

export const badRequest = (message: string) => fail("BAD_REQUEST", message);
export const unauthorized = (message = "Unauthorized") => fail("UNAUTHORIZED", message);
export const forbidden = (message: string) => fail("FORBIDDEN", message);
export const notFound = (message: string) => fail("NOT_FOUND", message);
export const conflict = (message: string) => fail("CONFLICT", message);
export const payloadTooLarge = (message: string) => fail("PAYLOAD_TOO_LARGE", message);
export const unsupportedMediaType = (message: string) => fail("UNSUPPORTED_MEDIA_TYPE", message);

export interface ErrorBody {
  statusCode: number;
  success: false;
  message: string;
  stack: Record<string, never> | string;
}

export function errorBody(status: number, message: string, stack?: string, extra?: Record<string, unknown>): ErrorBody {
  return { ...extra, statusCode: status, success: false, message, stack: stack ?? {} };
}

/**
 * Input that fails a rule only the service can check (e.g. a referenced record is missing).
 * 400, or 422 on the endpoints whose contract names a validation exception.
 */
export class ValidationError extends ApiError {
  constructor(message: string) {
    super("VALIDATION", message);
    this.name = "ValidationError";
  }
}
export const invalid = (message: string) => new ValidationError(message);

/** An outside service failed (502) or something did not answer in time (504); models have codes of their own. */
export const badGateway = (message: string) => fail("UPSTREAM_FAILED", message);
export const gatewayTimeout = (message: string) => fail("TIMEOUT", message);
export const tooManyRequests = (message: string) => fail("RATE_LIMITED", message);
