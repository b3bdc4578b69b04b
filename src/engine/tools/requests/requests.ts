// requestsGet, requestsPost, requestsPut, requestsDelete: an HTTP request to the URL the node
// configures (under the outbound policy), with the node's headers, and the model's query
// parameters or body; the answer is the response text, cut at the node's max output length.
import { DynamicStructuredTool } from "@langchain/core/tools";
import { fail } from "../../../errors";
import { headerSecrets, redact } from "../../../lib/redact";
import { jsonObject, num, str } from "../../core/inputs";
import { toolName } from "../names";
import { ToolCallError, callService } from "../service";
import type { ToolDefinition, ToolDeps } from "../types";
import { bodySchema, paramSpecs, querySchema, urlWith } from "./schema";

type Method = "GET" | "POST" | "PUT" | "DELETE";

interface RequestsSpec {
  node: string;
  method: Method;
  /** Flowise's input prefix: requestsGet → requestsGetUrl, requestsGetHeaders, …. */
  prefix: string;
  /** POST/PUT: the body input (Flowise spells it requestPostBody). */
  bodyInput?: string;
  description: string;
}

const SPECS: RequestsSpec[] = [
  {
    node: "requestsGet",
    method: "GET",
    prefix: "requestsGet",
    description: "Use this when you need to execute a GET request to get data from a website.",
  },
  {
    node: "requestsPost",
    method: "POST",
    prefix: "requestsPost",
    bodyInput: "requestPostBody",
    description: "Use this when you want to execute a POST request to create or update a resource.",
  },
  {
    node: "requestsPut",
    method: "PUT",
    prefix: "requestsPut",
    bodyInput: "requestPutBody",
    description: "Use this when you want to execute a PUT request to update or replace a resource.",
  },
  {
    node: "requestsDelete",
    method: "DELETE",
    prefix: "requestsDelete",
    description: "Use this when you need to execute a DELETE request to remove data from a website.",
  },
];

const stripHtml = (s: string) => s.replace(/<[^>]*>/g, "").trim();

/** A JSON object input (text or object), or the node's 400 naming it. */
function objectInput(v: unknown, where: string): Record<string, unknown> | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  const parsed = typeof v === "string" ? jsonObject(stripHtml(v)) : jsonObject(v);
  if (!parsed) throw fail("INVALID_FLOW", `${where} must be a JSON object`);
  return parsed;
}

function requestsTool(spec: RequestsSpec) {
  return async (inputs: Record<string, unknown>, { ctx, label }: ToolDeps) => {
    const input = (name: string) => inputs[name.charAt(0).toLowerCase() + name.slice(1)] ?? inputs[`${spec.prefix}${name}`];
    const url = str(input("Url")) && stripHtml(str(input("Url"))!);
    if (!url) throw fail("INVALID_FLOW", `${label} needs a URL (${spec.prefix}Url)`);
    const headers = Object.fromEntries(
      Object.entries(objectInput(input("Headers"), `${label}: headers`) ?? {}).map(([k, v]) => [k, String(v)]),
    );
    const fixedBody = spec.bodyInput ? objectInput(inputs.body ?? inputs[spec.bodyInput], `${label}: body`) : undefined;
    const specs = spec.bodyInput
      ? paramSpecs(input("BodySchema"), `${label}: body schema`)
      : paramSpecs(inputs.queryParamsSchema ?? inputs[`${spec.prefix}QueryParamsSchema`], `${label}: query parameters schema`);
    const maxOutput = num(inputs[`${spec.prefix}MaxOutputLength`]) ?? 2000;
    const name = str(input("Name"))
      ?.toLowerCase()
      .replace(/ /g, "_")
      .replace(/[^a-z0-9_-]/g, "");
    const secrets = headerSecrets(headers);

    return new DynamicStructuredTool({
      name: toolName(name || `requests_${spec.method.toLowerCase()}`),
      description: str(input("Description")) ?? spec.description,
      schema: spec.bodyInput ? bodySchema(specs) : querySchema(specs),
      func: async (args: { queryParams?: Record<string, unknown>; body?: Record<string, unknown> }) => {
        const target = spec.bodyInput ? url : urlWith(url, args.queryParams, specs);
        // The model's body fields over the node's fixed body (Flowise merges them only with a schema;
        // without one the model is still offered `body`, so it is honoured too).
        const body = spec.bodyInput ? JSON.stringify({ ...fixedBody, ...args.body }) : undefined;
        const init = { method: spec.method, headers: spec.bodyInput ? { "Content-Type": "application/json", ...headers } : headers, body };
        try {
          const res = await callService({ service: target, url: target, init, secrets, policy: ctx.runtime.outbound }, ctx);
          if (!res.ok) throw new ToolCallError(`HTTP Error ${res.status}${res.text ? `: ${res.text.slice(0, 200)}` : ""}`);
          return res.text.slice(0, maxOutput);
        } catch (err) {
          if (!(err instanceof ToolCallError)) throw err;
          throw new ToolCallError(redact(`Failed to make ${spec.method} request: ${err.message}`, secrets));
        }
      },
    });
  };
}

export const requestsTools: ToolDefinition[] = SPECS.map((spec) => ({ name: spec.node, build: requestsTool(spec) }));
