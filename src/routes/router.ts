import { OpenAPIHono, type RouteConfig, createRoute, type z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";
import { requireAuth } from "../auth/bearer";
import type { Guard } from "../auth/guard";
import { ErrorResponse } from "../schemas/common";

/** The OpenAPI security scheme of every token-checked route (components.securitySchemes): a bearer API key or JWT. */
export const BEARER_SCHEME = "bearerAuth";

/** A validation failure of a request body on an endpoint whose contract says 422. */
export const VALIDATION_422: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set("validationStatus", 422);
  await next();
};

type Issue = { path: PropertyKey[]; message: string };

export function describeIssues(issues: readonly Issue[]): string {
  return issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.map(String).join(".")}: ${i.message}` : i.message))
    .join("; ");
}

/**
 * Turns a failed zod validation into the API's error. Path and query problems are 400; a body
 * that is missing or not an object is 400; a body failing its schema is 400, or 422 where the
 * route says so.
 */
export function validationHook(
  result: { success: boolean; target: string; error?: { issues: readonly Issue[] } },
  c: Context<AppEnv>,
): void {
  if (result.success || !result.error) return;
  const issues = result.error.issues;
  const where = result.target === "json" ? "body" : result.target === "param" ? "path" : result.target;
  let status = 400;
  if (result.target === "json") {
    if (!c.req.header("content-type")) throw new ApiError(400, "Request body is required (application/json)");
    const rootProblem = issues.some((i) => i.path.length === 0);
    if (!rootProblem) status = c.get("validationStatus") ?? 400;
  }
  throw new ApiError(status, `Invalid request ${where}: ${describeIssues(issues)}`);
}

export const createRouter = () => new OpenAPIHono<AppEnv>({ strict: false, defaultHook: validationHook });

/** OpenAPI responses for these error statuses, each the API's one error body. */
export const errorResponsesFor = (statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [status, { description: "Error", content: { "application/json": { schema: ErrorResponse } } }]),
  );

const errorResponses = errorResponsesFor([400, 401, 404, 409, 413, 415, 422]);
const guardedErrorResponses = errorResponsesFor([400, 401, 403, 404, 409, 413, 415, 422]);

/** Whether a request carries at least one byte of body (read from a clone: the body stays readable). */
async function hasBodyBytes(req: Request): Promise<boolean> {
  if (req.body === null) return false;
  const reader = req.clone().body!.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return false;
      if (value.byteLength > 0) return true;
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * A required JSON body that is absent altogether (no content type, no bytes — or an empty one, as
 * `curl -X PUT` sends it) is a 400: without this, the validator would see `{}` and an all-optional
 * PUT would answer 200 having done nothing. A body sent without a content type is left to the
 * media-type check (415).
 */
const requireBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!c.req.header("content-type") && !(await hasBodyBytes(c.req.raw)))
    throw new ApiError(400, "Request body is required (application/json)");
  await next();
};

const routeMiddleware = (config: RouteConfig, first: MiddlewareHandler<AppEnv>[]) => [
  ...first,
  ...(config.middleware ? [config.middleware].flat() : []),
  ...(config.request?.body?.required ? [requireBody] : []),
];

/**
 * A route that needs a bearer token and declares the permission it needs: `permission` is the
 * guard (auth/guard.ts, auth/record-guards.ts) — every protected route must name one.
 */
export function protectedRoute<R extends RouteConfig>(config: R & { permission: Guard | Guard[] }) {
  const { permission, ...route } = config;
  const guards = [permission].flat();
  const middleware = routeMiddleware(route as unknown as R, [requireAuth, ...guards]);
  const needs = `Needs: ${guards.map((g) => g.needs).join("; ")}.`;
  return createRoute({
    ...route,
    description: route.description ? `${route.description}\n\n${needs}` : needs,
    middleware,
    security: [{ [BEARER_SCHEME]: [] }],
    responses: { ...guardedErrorResponses, ...route.responses },
  } as unknown as R);
}

/**
 * A route open without a token (the handler may still check a chatflow's `isPublic`). Its OpenAPI
 * security is the empty requirement (anonymous) unless the route names its own.
 */
export function publicRoute<R extends RouteConfig>(config: R) {
  const middleware = routeMiddleware(config, []);
  return createRoute({
    ...config,
    ...(middleware.length ? { middleware } : {}),
    security: config.security ?? [{}],
    responses: { ...errorResponses, ...config.responses },
  } as R);
}

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});

export const jsonResponse = <T extends z.ZodType>(schema: T, description = "OK") => ({
  200: { description, content: { "application/json": { schema } } },
});

/** OpenAPI security for widget routes: anonymous (public chatflows) or a bearer token. */
export const OPTIONAL_BEARER: Record<string, string[]>[] = [{}, { [BEARER_SCHEME]: [] }];

type OpenAPIRouter = ReturnType<typeof createRouter>;

/**
 * A body the handler reads itself (JSON or multipart through readJsonOrForm, with its own limits,
 * checks and messages), so the router must not validate it: documented only. The JSON schema is
 * registered as a component and referenced; the multipart one is plain OpenAPI (binary `files`).
 */
export function bodyReadByHandler(
  router: OpenAPIRouter,
  json: { name: string; schema: z.ZodType },
  multipart: Record<string, unknown>,
  required = true,
) {
  router.openAPIRegistry.register(json.name, json.schema);
  return {
    required,
    content: {
      "application/json": { schema: { $ref: `#/components/schemas/${json.name}` } },
      "multipart/form-data": { schema: multipart },
    },
  } as unknown as NonNullable<RouteConfig["request"]>["body"];
}

/** OpenAPI for a multipart body: `files` (binary, repeated) and these text fields. */
export const multipartWithFiles = (fields: Record<string, { description?: string }>, required: string[] = []) => ({
  type: "object",
  properties: {
    files: { type: "array", items: { type: "string", format: "binary" } },
    ...Object.fromEntries(Object.entries(fields).map(([name, f]) => [name, { type: "string", ...f }])),
  },
  ...(required.length ? { required } : {}),
});
