/** The one error type services and routes throw; app.onError turns it into the JSON body. */
export class ApiError extends Error {
  /** `extra`: fields the error body carries besides the usual ones (Flowise's `retry` on an expired session). */
  constructor(
    readonly status: number,
    message: string,
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const badRequest = (message: string) => new ApiError(400, message);
export const unauthorized = (message = "Unauthorized") => new ApiError(401, message);
export const forbidden = (message: string) => new ApiError(403, message);
export const notFound = (message: string) => new ApiError(404, message);
export const conflict = (message: string) => new ApiError(409, message);
export const payloadTooLarge = (message: string) => new ApiError(413, message);
export const unsupportedMediaType = (message: string) => new ApiError(415, message);

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
    super(400, message);
    this.name = "ValidationError";
  }
}
export const invalid = (message: string) => new ValidationError(message);

/** A model or embedding provider failed (502) or did not answer in time (504). */
export const badGateway = (message: string) => new ApiError(502, message);
export const gatewayTimeout = (message: string) => new ApiError(504, message);
export const tooManyRequests = (message: string) => new ApiError(429, message);
