// Google Vertex AI stand-in: Google's OAuth token endpoint (POST /token, grant type jwt-bearer: the
// assertion's RS256 signature verified with the public key a test registered for its service
// account at POST /control/keys, its aud, iss and exp checked, as Google does) and Vertex AI's model calls
// (POST /v1/projects/{p}/locations/{r}/publishers/google/models/{m}:generateContent,
// :streamGenerateContent?alt=sse, :predict), each refused with Google's 401 unless it brings a bearer
// token /token issued. Chat answers follow chatScript (base.mjs) in the Gemini shape; :predict answers
// small deterministic vectors. Requests are recorded with the account that signed in (`account`), so
// GET /requests?contains=<marker> finds a test's token requests by its account's e-mail. A generateContent
// body Vertex AI refuses (validateVertexGenerateContent) gets Google's 400 INVALID_ARGUMENT.
import { createPublicKey, verify } from "node:crypto";
import { createServer } from "node:http";
import { chatScript, forcedCall, hang, sse, tokensOf } from "./base.mjs";
import { validateGenerateContent } from "./gemini.mjs";

/**
 * A loopback server recording each request ({method, path, headers, body, raw, account}); bodies are
 * JSON or forms (`body` then the form's fields). GET /requests?contains=X lists those whose raw body
 * or account contains X. `handle(ctx)` answers; ctx = {req, res, url, body, record, json}.
 */
export function serveRecorded(handle) {
  const requests = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://standin");
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks).toString("utf8");
    const json = (status, value) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    if (url.pathname === "/requests") {
      const m = url.searchParams.get("contains") ?? "";
      return json(
        200,
        requests.filter((r) => r.raw.includes(m) || (r.account ?? "").includes(m)).map(({ raw: _raw, ...r }) => r),
      );
    }
    let body;
    if (/x-www-form-urlencoded/.test(req.headers["content-type"] ?? "")) body = Object.fromEntries(new URLSearchParams(raw));
    else if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        return json(400, { error: { code: 400, message: "body is not JSON", status: "INVALID_ARGUMENT" } });
      }
    }
    const record = { method: req.method, path: url.pathname + url.search, headers: { ...req.headers }, body, raw };
    if (!url.pathname.startsWith("/control/")) requests.push(record); // a test's set-up is not a request to the service
    try {
      await handle({ req, res, url, body, record, json });
    } catch (err) {
      if (!res.headersSent) json(500, { error: { message: String(err) } });
      else res.destroy();
    }
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections?.();
            server.close(() => r());
          }),
      });
    });
  });
}

/** A small deterministic bag-of-words vector. */
export function wordVector(text, dims = 16) {
  const v = new Array(dims).fill(0);
  for (const w of String(text)
    .toLowerCase()
    .match(/[a-z0-9]+/g) ?? []) {
    let h = 0;
    for (const ch of w) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
    v[h % dims] += 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

const textOf = (parts) =>
  (parts ?? [])
    .filter((p) => typeof p.text === "string")
    .map((p) => p.text)
    .join("");

const b64json = (s) => JSON.parse(Buffer.from(s, "base64url").toString("utf8"));

// Vertex AI's generateContent takes the Gemini API's request (the rules validateGenerateContent checks: roles,
// non-empty parts, one data field per part, the function-turn order, tool config, generation config) with
// these differences, from Vertex's own reference (cloud.google.com/vertex-ai/docs/reference/rest/v1/
// GenerateContentRequest, FunctionDeclaration, Schema): two more request fields (labels, modelArmorConfig);
// a function name must start with a letter or an underscore (then letters, digits, _ . : -, up to 128 — older
// revisions said 64, without colons); Vertex's Schema has more fields (additionalProperties, ref, defs) and
// takes any format or enum. And it refuses an empty text part, in its own words (quoted in
// Portkey-AI/gateway#462, deepset-ai/haystack-core-integrations#1337).
const VERTEX_REQUEST_ONLY = ["labels", "modelArmorConfig", "model_armor_config"];
const VERTEX_FUNCTION_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/;
const VERTEX_SCHEMA_FIELDS = new Set([
  ...["type", "format", "title", "description", "nullable", "default", "items", "minItems", "maxItems", "enum"],
  ...["properties", "propertyOrdering", "required", "minProperties", "maxProperties", "minLength", "maxLength"],
  ...["pattern", "example", "anyOf", "additionalProperties", "ref", "defs", "minimum", "maximum"],
]);
const VERTEX_TYPES = ["TYPE_UNSPECIFIED", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"];
const EMPTY_TEXT =
  "Unable to submit request because it has an empty text parameter. Add a value to the parameter and try again. " +
  "Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini";
const isObject = (v) => !!v && typeof v === "object" && !Array.isArray(v);
const camel = (k) => k.replace(/_([a-z])/g, (_, c) => c.toUpperCase()); // proto JSON takes both spellings

/** The first field of a Vertex Schema (recursively) Vertex does not know, or a type it lacks; undefined if none. */
function vertexSchemaError(schema, at) {
  if (typeof schema === "boolean" && at.endsWith("additional_properties")) return undefined;
  if (!isObject(schema)) return `Invalid value at '${at}': a Schema must be an object`;
  for (const [k, v] of Object.entries(schema)) {
    const key = camel(k);
    if (!VERTEX_SCHEMA_FIELDS.has(key)) return `Invalid JSON payload received. Unknown name "${k}" at '${at}': Cannot find field.`;
    if (key === "type" && (typeof v !== "string" || !VERTEX_TYPES.includes(v.toUpperCase())))
      return `Invalid value at '${at}.type' (type.googleapis.com/google.cloud.aiplatform.v1.Type), ${JSON.stringify(v)}`;
    const nested =
      (key === "properties" || key === "defs") && isObject(v)
        ? Object.entries(v).map(([name, s]) => [s, `${at}.${k}[${name}].value`])
        : key === "items" || key === "additionalProperties"
          ? [[v, `${at}.${key === "items" ? "items" : "additional_properties"}`]]
          : key === "anyOf" && Array.isArray(v)
            ? v.map((s, i) => [s, `${at}.any_of[${i}]`])
            : [];
    for (const [s, path] of nested) {
      const e = vertexSchemaError(s, path);
      if (e) return e;
    }
  }
  return undefined;
}

/** What Vertex AI refuses in a generateContent body: its error message, or undefined. */
export function validateVertexGenerateContent(body) {
  if (!isObject(body)) return "Invalid JSON payload received. Expected an object.";
  const system = body.systemInstruction ?? body.system_instruction;
  for (const c of [...(Array.isArray(body.contents) ? body.contents : []), ...(isObject(system) ? [system] : [])])
    if ((Array.isArray(c?.parts) ? c.parts : []).some((p) => p?.text === "")) return EMPTY_TEXT;
  const tools = Array.isArray(body.tools) ? body.tools : [];
  for (const [t, tool] of tools.entries()) {
    for (const [d, decl] of (tool?.functionDeclarations ?? tool?.function_declarations ?? []).entries()) {
      const at = `tools[${t}].function_declarations[${d}]`;
      if (typeof decl?.name !== "string" || !VERTEX_FUNCTION_NAME.test(decl.name))
        return (
          `* GenerateContentRequest.${at}.name: Invalid function name. Must start with a letter or an underscore. ` +
          "Must be a-z, A-Z, 0-9, or contain underscores, dots, colons and dashes, with a maximum length of 128."
        );
      if (decl.parameters !== undefined) {
        const e = vertexSchemaError(decl.parameters, `${at}.parameters`);
        if (e) return e;
      }
    }
  }
  // The rest as the Gemini API checks it, without what Vertex adds (checked above).
  const shared = Object.fromEntries(Object.entries(body).filter(([k]) => !VERTEX_REQUEST_ONLY.includes(k)));
  if (tools.length)
    shared.tools = tools.map((tool) => {
      const decls = tool?.functionDeclarations ?? tool?.function_declarations;
      return Array.isArray(decls) ? { functionDeclarations: decls.map(({ parameters: _p, ...decl }) => decl) } : tool;
    });
  return validateGenerateContent(shared);
}

export function startVertexStandin() {
  const keys = new Map(); // client_email → public key
  const tokens = new Map(); // access token → client_email
  const googleError = (json, code, status, message) => json(code, { error: { code, message, status } });
  return serveRecorded(async ({ req, res, url, body, record, json }) => {
    if (req.method === "POST" && url.pathname === "/control/keys") {
      keys.set(body.client_email, createPublicKey(body.public_key));
      return json(200, { ok: true });
    }
    if (req.method === "POST" && url.pathname === "/token") {
      const bad = (description) => json(400, { error: "invalid_grant", error_description: description });
      if (body?.grant_type !== "urn:ietf:params:oauth:grant-type:jwt-bearer") return json(400, { error: "unsupported_grant_type" });
      const [h, c, s] = String(body.assertion ?? "").split(".");
      let header;
      let claims;
      try {
        header = b64json(h);
        claims = b64json(c);
      } catch {
        return bad("Invalid JWT.");
      }
      record.account = claims.iss;
      const key = keys.get(claims.iss);
      if (header.alg !== "RS256" || !key) return bad("Invalid grant: account not found");
      if (!verify("RSA-SHA256", Buffer.from(`${h}.${c}`), key, Buffer.from(s ?? "", "base64url"))) return bad("Invalid JWT Signature.");
      const now = Math.floor(Date.now() / 1000);
      if (claims.aud !== `http://${req.headers.host}/token`) return bad("Invalid JWT: Failed audience check.");
      if (!(claims.exp > now && claims.iat <= now + 60 && claims.exp - claims.iat <= 3600))
        return bad("Invalid JWT: Token must be a short-lived token.");
      if (!String(claims.scope).includes("https://www.googleapis.com/auth/cloud-platform")) return bad("Invalid scope");
      const token = `ya29.standin-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
      tokens.set(token, claims.iss);
      return json(200, { access_token: token, expires_in: 3599, token_type: "Bearer" });
    }
    const m =
      /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/google\/models\/([^/:]+):(generateContent|streamGenerateContent|predict)$/.exec(
        url.pathname,
      );
    if (req.method !== "POST" || !m) return googleError(json, 404, "NOT_FOUND", `no route ${url.pathname}`);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    record.account = bearer ? tokens.get(bearer) : undefined;
    if (!record.account)
      return googleError(json, 401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token.");
    if (m[4] === "predict") {
      const instances = body?.instances ?? [];
      if (!instances.length || instances.some((i) => typeof i.content !== "string"))
        return googleError(json, 400, "INVALID_ARGUMENT", "instances[].content is required");
      if (instances.some((i) => i.content.includes("[fail]"))) return googleError(json, 500, "INTERNAL", "stand-in refuses this request");
      return json(200, {
        predictions: instances.map((i) => ({
          embeddings: { values: wordVector(i.content), statistics: { token_count: 3, truncated: false } },
        })),
      });
    }
    const invalid = validateVertexGenerateContent(body);
    if (invalid) return googleError(json, 400, "INVALID_ARGUMENT", invalid);
    const contents = body?.contents ?? [];
    const lastUserIdx = contents.findLastIndex((c) => c.role === "user" && textOf(c.parts));
    const results = contents
      .slice(lastUserIdx)
      .flatMap((c) => c.parts ?? [])
      .filter((p) => p.functionResponse)
      .map((p) => p.functionResponse.response?.content ?? JSON.stringify(p.functionResponse.response));
    const last = textOf(contents[lastUserIdx]?.parts);
    const declared = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
    // ANY with one allowed function forces that call (structured output, a supervisor's route).
    const calling = body.toolConfig?.functionCallingConfig;
    const only = calling?.mode === "ANY" && calling.allowedFunctionNames?.length === 1 ? calling.allowedFunctionNames[0] : undefined;
    const forced = only && !results.length ? declared.find((d) => d.name === only) : undefined;
    const step = forced ? forcedCall(forced.name, forced.parameters, last) : chatScript(last, results, declared.length > 0);
    if (step.fail)
      return googleError(json, step.fail, step.fail === 500 ? "INTERNAL" : "INVALID_ARGUMENT", "stand-in refuses this request");
    if (step.hang) return hang(res);
    const answer = (parts, finishReason) => ({
      candidates: [{ content: { role: "model", parts }, ...(finishReason ? { finishReason } : {}), index: 0 }],
      usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 5, totalTokenCount: 8 },
      modelVersion: m[3],
    });
    const parts = step.calls ? step.calls.map((c) => ({ functionCall: { name: c.name, args: c.args } })) : [{ text: step.text }];
    if (m[4] === "generateContent") return json(200, answer(parts, "STOP"));
    if (url.searchParams.get("alt") !== "sse") return googleError(json, 400, "INVALID_ARGUMENT", "stand-in streams only with alt=sse");
    const frames = step.calls
      ? [answer(parts, "STOP")]
      : tokensOf(step.text).map((t, i, all) => answer([{ text: t }], i === all.length - 1 ? "STOP" : undefined));
    sse(
      res,
      frames.map((f) => `data: ${JSON.stringify(f)}\r\n\r\n`),
    );
  });
}
