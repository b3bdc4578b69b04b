// Errors of the OpenAI-compatible API in OpenAI's body, `{error: {message, type, param, code}}`, with
// the API's statuses (API.md "OpenAI-compatible API"). Services throw OpenAIError where they know the
// offending field; any other ApiError keeps its status and gets the type and code of that status.
import { ApiError } from "../../errors";

/** Where the OpenAI-compatible API lives: its errors (even a 404 route, a 413) take OpenAI's shape. */
export const OPENAI_PATH_PREFIX = "/api/v1/openai";

export const isOpenAIPath = (path: string): boolean => path === OPENAI_PATH_PREFIX || path.startsWith(`${OPENAI_PATH_PREFIX}/`);

export class OpenAIError extends ApiError {
  constructor(
    status: number,
    message: string,
    readonly param: string | null = null,
    readonly openaiCode: string | null = null,
  ) {
    super(status, message);
    this.name = "OpenAIError";
  }
}

/** A field the flow cannot honour and that would change the answer's meaning: never silently dropped. */
export const unsupportedParameter = (param: string, message: string) => new OpenAIError(400, message, param, "unsupported_parameter");
export const invalidValue = (param: string | null, message: string) => new OpenAIError(400, message, param, "invalid_value");
export const modelNotFound = (model: string) =>
  new OpenAIError(
    404,
    `The model '${model}' does not exist or you do not have access to it (a model is a flow's id or its name slug; ` +
      `GET /openai/models lists them)`,
    "model",
    "model_not_found",
  );

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const TYPES: Record<number, [type: string, code: string | null]> = {
  401: ["authentication_error", "invalid_api_key"],
  403: ["permission_error", "permission_denied"],
  404: ["invalid_request_error", "not_found"],
  409: ["invalid_request_error", "conflict"],
  413: ["invalid_request_error", "request_too_large"],
  415: ["invalid_request_error", "unsupported_media_type"],
  429: ["rate_limit_error", "rate_limit_exceeded"],
  499: ["invalid_request_error", "request_aborted"],
  502: ["server_error", "upstream_error"],
  504: ["server_error", "upstream_timeout"],
};

/** The body of an error of this status; `message` is already scrubbed of secrets. */
export function openAIErrorBody(status: number, message: string, err?: unknown): OpenAIErrorBody {
  const [type, code] = TYPES[status] ?? (status >= 500 ? ["server_error", "server_error"] : ["invalid_request_error", null]);
  const own = err instanceof OpenAIError ? err : undefined;
  return { error: { message, type, param: own?.param ?? null, code: own?.openaiCode ?? code } };
}
