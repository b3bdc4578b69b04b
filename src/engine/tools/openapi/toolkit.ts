// openAPIToolkit: one tool per operation of an OpenAPI spec (YAML or JSON: a file, or a link;
// spec-source.ts), the operations chosen in Available Endpoints (all when none is chosen).
// Like Flowise's, a tool takes PathParameters, QueryParameters and RequestBody (or `input` for an
// operation with neither parameters nor a body schema). The request goes to the chosen Server, else
// the spec's first (or the node's baseUrl), under the outbound policy, with the node's headers. With a customCode of
// the user's own, that code makes the request in the QuickJS sandbox ($url, $options), as in Flowise.
import { DynamicStructuredTool, type StructuredToolInterface } from "@langchain/core/tools";
import { z } from "zod";
import { fail } from "../../../errors";
import { headerSecrets, redact } from "../../../lib/redact";
import { bool, jsonObject, str } from "../../core/inputs";
import { flowOf } from "../custom";
import { toolName } from "../names";
import { ToolCallError, callService } from "../service";
import type { ToolDeps } from "../types";
import type { Operation, Parameter } from "./spec";
import { loadSpec, selectedEndpoints } from "./spec-source";

// Flowise's default customCode (fetch, answer the JSON, swallow errors as ""): edgeflow makes that
// request itself instead, so a failure reaches the model as a readable error, without a sandbox.
const DEFAULT_CODE = `const fetch = require('node-fetch');
const url = $url;
const options = $options;

try {
	const response = await fetch(url, options);
	const resp = await response.json();
	return JSON.stringify(resp);
} catch (error) {
	console.error(error);
	return '';
}`;
const squeeze = (code: string) => code.replace(/\s+/g, "");
const isDefaultCode = (code: string) => squeeze(code) === squeeze(DEFAULT_CODE);

/** The most of an API's answer the model reads. */
const MAX_OUTPUT_CHARS = 20_000;

type Args = { PathParameters?: Record<string, unknown>; QueryParameters?: Record<string, unknown>; RequestBody?: unknown; input?: string };

/** A JSON Schema as zod (for the model's view of the tool); a schema zod cannot read stays open. */
function zodOf(schema: Record<string, unknown> | undefined, description?: string): z.ZodType {
  let out: z.ZodType;
  try {
    out = schema ? z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]) : z.any();
  } catch {
    out = z.any();
  }
  return description ? out.describe(description) : out;
}

const paramsObject = (params: Parameter[]) =>
  z.object(
    Object.fromEntries(
      params.map((p) => {
        const s = zodOf(p.schema, p.description ?? p.name);
        return [p.name, p.required ? s : s.optional()];
      }),
    ),
  );

function schemaOf(op: Operation): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  const path = op.parameters.filter((p) => p.in === "path");
  const query = op.parameters.filter((p) => p.in === "query");
  if (path.length) shape.PathParameters = paramsObject(path);
  if (query.length) shape.QueryParameters = query.some((p) => p.required) ? paramsObject(query) : paramsObject(query).optional();
  if (op.body?.schema) shape.RequestBody = op.body.required ? zodOf(op.body.schema) : zodOf(op.body.schema).optional();
  else if (op.body || !op.parameters.length) shape.input = z.string().describe("Query input").optional();
  return z.object(shape);
}

/** Drops null and undefined values, deeply (removeNulls). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== null && v !== undefined).map(withoutNulls);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null && v !== undefined)
        .map(([k, v]) => [k, withoutNulls(v)]),
    );
  }
  return value;
}

/** The operation's URL for the model's arguments; a missing path parameter is the model's error to fix. */
function urlFor(base: string, op: Operation, args: Args): string {
  const pathArgs = args.PathParameters ?? {};
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const v = pathArgs[name];
    if (v === undefined || v === null || v === "") throw new ToolCallError(`${op.id} needs the path parameter ${name} (in PathParameters)`);
    return encodeURIComponent(String(v));
  });
  const url = new URL(base.replace(/\/+$/, "") + path);
  for (const [k, v] of Object.entries(args.QueryParameters ?? {})) {
    if (v === undefined || v === null) continue;
    for (const item of Array.isArray(v) ? v : [v])
      url.searchParams.append(k, typeof item === "object" ? JSON.stringify(item) : String(item));
  }
  return url.toString();
}

function baseUrlOf(inputs: Record<string, unknown>, server: string | undefined, label: string): string {
  const base = str(inputs.baseUrl) ?? server;
  if (!base) throw fail("INVALID_FLOW", `${label}: its OpenAPI spec names no server (servers[0].url); set one in the spec or in baseUrl`);
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw fail("INVALID_FLOW", `${label}: the API's base URL ${base} is not an absolute URL; set baseUrl`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw fail("INVALID_FLOW", `${label}: the API's base URL must be http(s), not ${url.protocol}`);
  return base;
}

export async function openApiToolkit(inputs: Record<string, unknown>, { ctx, label }: ToolDeps): Promise<StructuredToolInterface[]> {
  const spec = await loadSpec(inputs, ctx, label);
  const chosenServer = str(inputs.selectedServer);
  const base = baseUrlOf(inputs, chosenServer && chosenServer !== "error" ? chosenServer : spec.server, label);
  const chosen = selectedEndpoints(inputs.selectedEndpoints);
  const rawHeaders = inputs.headers === undefined || inputs.headers === "" ? {} : jsonObject(inputs.headers);
  if (!rawHeaders) throw fail("INVALID_FLOW", `${label}: headers must be a JSON object`);
  const headers = Object.fromEntries(Object.entries(rawHeaders).map(([k, v]) => [k, String(v)]));
  const secrets = headerSecrets(headers);
  const code = str(inputs.customCode) && !isDefaultCode(str(inputs.customCode)!) ? str(inputs.customCode) : undefined;
  const removeNulls = bool(inputs.removeNulls);
  const returnDirect = bool(inputs.returnDirect);

  const call = async (op: Operation, args: Args): Promise<string> => {
    const clean = (removeNulls ? withoutNulls(args) : args) as Args;
    const url = urlFor(base, op, clean);
    const payload = clean.RequestBody !== undefined ? JSON.stringify(clean.RequestBody) : clean.input;
    const options = {
      method: op.method.toUpperCase(),
      headers: { ...(payload !== undefined ? { "Content-Type": "application/json" } : {}), ...headers },
      ...(payload !== undefined && op.method !== "get" && op.method !== "head" ? { body: payload } : {}),
    };
    if (code) {
      const out = await ctx.runtime.code.run(code, { args: { url, options }, vars: ctx.vars, flow: flowOf(ctx), signal: ctx.signal });
      return redact(out, secrets);
    }
    const res = await callService({ service: `${label} ${op.id}`, url, init: options, secrets, policy: ctx.runtime.outbound }, ctx);
    if (!res.ok)
      throw new ToolCallError(redact(`${op.id} answered HTTP ${res.status}${res.text ? `: ${res.text.slice(0, 300)}` : ""}`, secrets));
    return res.text.length > MAX_OUTPUT_CHARS ? `${res.text.slice(0, MAX_OUTPUT_CHARS)}… [cut]` : res.text;
  };

  return spec.operations
    .filter((op) => !chosen.size || chosen.has(op.endpoint))
    .map(
      (op) =>
        new DynamicStructuredTool({
          name: toolName(op.id),
          description: op.description,
          schema: schemaOf(op),
          returnDirect,
          func: (args: Args) => call(op, args),
        }),
    );
}
