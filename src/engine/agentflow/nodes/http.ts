// HTTP: one request through the outbound URL policy (src/lib/outbound/: loopback, private and
// metadata addresses refused unless OUTBOUND_ALLOW lists them; every redirect hop checked). Body
// types json (JSON text or rows), raw, formData and xWwwFormUrlencoded (rows {key, value}); no body
// on GET. Credentials: basic auth, bearer token or an API key header. The output is `{http: {data,
// status, statusText, headers}}` (no `content`); a non-2xx answer fails the node (502).
import { ApiError, fail } from "../../../errors";
import { outboundFetch } from "../../../lib/outbound";
import type { AgentflowNodeDef } from "../node-types";
import { errorMessage, isObject, listOf, nonBlank } from "../util";
import { ownerOf } from "./common";

const HTTP_TIMEOUT_MS = 30_000;
const MAX_HTTP_RESPONSE_BYTES = 5 * 1024 * 1024;

type Row = { key?: unknown; value?: unknown };
const rows = (v: unknown) => listOf<Row>(v).filter((r) => typeof r.key === "string" && r.key && r.value !== undefined && r.value !== "");

function pairs(v: unknown, owner: string): Array<[string, string]> {
  if (Array.isArray(v)) return rows(v).map((r) => [String(r.key), typeof r.value === "string" ? r.value : JSON.stringify(r.value)]);
  const obj = typeof v === "string" ? parseJson(v, owner) : v;
  if (!isObject(obj)) throw fail("INVALID_FLOW", `${owner}: the body must be {key: value} pairs for this body type`);
  return Object.entries(obj).map(([k, val]) => [k, typeof val === "string" ? val : JSON.stringify(val)]);
}

function parseJson(text: string, owner: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw fail("INVALID_FLOW", `${owner}: the JSON body is not valid JSON (${errorMessage(err)})`);
  }
}

function body(type: unknown, raw: unknown, headers: Record<string, string>, owner: string): BodyInit | undefined {
  if (raw === undefined || raw === null || raw === "" || (Array.isArray(raw) && !raw.length)) return undefined;
  switch (type) {
    case "raw":
      return typeof raw === "string" ? raw : JSON.stringify(raw);
    case "formData": {
      const form = new FormData();
      for (const [k, v] of pairs(raw, owner)) form.append(k, v);
      return form;
    }
    case "xWwwFormUrlencoded":
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      return new URLSearchParams(pairs(raw, owner)).toString();
    default: {
      headers["Content-Type"] = "application/json";
      const value = typeof raw === "string" ? parseJson(raw, owner) : Array.isArray(raw) ? Object.fromEntries(pairs(raw, owner)) : raw;
      return JSON.stringify(value);
    }
  }
}

async function readCapped(res: Response, owner: string): Promise<Uint8Array> {
  const declared = Number(res.headers.get("content-length"));
  if (declared > MAX_HTTP_RESPONSE_BYTES)
    throw fail("UPSTREAM_FAILED", `${owner}: the response is larger than ${MAX_HTTP_RESPONSE_BYTES / 1024 / 1024} MB`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (bytes.byteLength > MAX_HTTP_RESPONSE_BYTES)
    throw fail("UPSTREAM_FAILED", `${owner}: the response is larger than ${MAX_HTTP_RESPONSE_BYTES / 1024 / 1024} MB`);
  return bytes;
}

function decodeAs(type: unknown, bytes: Uint8Array): unknown {
  if (type === "base64" || type === "arraybuffer") {
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(binary);
  }
  const text = new TextDecoder().decode(bytes);
  if (type === "text") return text;
  try {
    return JSON.parse(text);
  } catch {
    return text; // axios gives the text when JSON is asked for and the body is not JSON
  }
}

export const httpNode: AgentflowNodeDef = {
  name: "httpAgentflow",
  variableParams: ["url", "headers", "queryParams", "body"],
  async run({ node, inputs, rt }) {
    const owner = ownerOf(node);
    const method = (nonBlank(inputs.method) ?? "GET").toUpperCase();
    const url = nonBlank(inputs.url)?.trim();
    if (!url) throw fail("INVALID_FLOW", `${owner} needs a URL`);
    const headers: Record<string, string> = {};
    for (const r of rows(inputs.headers)) headers[String(r.key)] = String(r.value);
    const credentialId = nonBlank(node.data.credential) ?? nonBlank(inputs.credential) ?? nonBlank(inputs.FLOWISE_CREDENTIAL_ID);
    if (credentialId) {
      const c = await rt.ctx.getCredential(credentialId);
      if (nonBlank(c.basicAuthUsername) || nonBlank(c.basicAuthPassword))
        headers.Authorization = `Basic ${btoa(`${c.basicAuthUsername ?? ""}:${c.basicAuthPassword ?? ""}`)}`;
      else if (nonBlank(c.token)) headers.Authorization = `Bearer ${c.token}`;
      else if (nonBlank(c.key) && nonBlank(c.value)) headers[String(c.key)] = String(c.value);
    }
    const query = new URLSearchParams(rows(inputs.queryParams).map((r) => [String(r.key), String(r.value)])).toString();
    const finalUrl = query ? `${url}${url.includes("?") ? "&" : "?"}${query}` : url;
    const payload = method === "GET" || method === "HEAD" ? undefined : body(inputs.bodyType, inputs.body, headers, owner);

    const deadline = AbortSignal.timeout(HTTP_TIMEOUT_MS);
    let res: Response;
    try {
      res = await outboundFetch(
        finalUrl,
        { method, headers, body: payload, signal: AbortSignal.any([rt.signal, deadline]) },
        rt.ctx.runtime.outbound,
      );
    } catch (err) {
      if (err instanceof ApiError || rt.signal.aborted) throw err;
      if (deadline.aborted)
        throw fail("TIMEOUT", `${owner}: ${method} ${finalUrl.slice(0, 200)} did not answer within ${HTTP_TIMEOUT_MS / 1000} s`);
      throw fail("UPSTREAM_FAILED", `${owner}: ${method} ${finalUrl.slice(0, 200)} failed: ${errorMessage(err)}`);
    }
    const data = decodeAs(inputs.responseType, await readCapped(res, owner));
    if (!res.ok) {
      const detail = isObject(data) ? (data.message ?? data.error ?? JSON.stringify(data)) : data;
      throw fail(
        "UPSTREAM_FAILED",
        `${owner}: ${method} ${finalUrl.slice(0, 200)} answered ${res.status}: ${String(detail).slice(0, 300)}`,
      );
    }
    return {
      id: node.id,
      name: node.data.name,
      input: {
        http: {
          method,
          url,
          headers: inputs.headers,
          queryParams: inputs.queryParams,
          bodyType: inputs.bodyType,
          body: inputs.body,
          responseType: inputs.responseType,
        },
      },
      output: { http: { data, status: res.status, statusText: res.statusText, headers: Object.fromEntries(res.headers) } },
      state: rt.state,
    };
  },
};
