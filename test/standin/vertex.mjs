// Google Vertex AI stand-in: Google's OAuth token endpoint (POST /token, grant type jwt-bearer: the
// assertion's RS256 signature verified with the public key a test registered for its service
// account at POST /control/keys, its aud, iss and exp checked, as Google does) and Vertex AI's model calls
// (POST /v1/projects/{p}/locations/{r}/publishers/google/models/{m}:generateContent,
// :streamGenerateContent?alt=sse, :predict), each refused with Google's 401 unless it brings a bearer
// token /token issued. Chat answers follow chatScript (base.mjs) in the Gemini shape; :predict answers
// small deterministic vectors. Requests are recorded with the account that signed in (`account`), so
// GET /requests?contains=<marker> finds a test's token requests by its account's e-mail.
import { createPublicKey, verify } from "node:crypto";
import { createServer } from "node:http";
import { chatScript, hang, sse, tokensOf } from "./base.mjs";

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
    const contents = body?.contents ?? [];
    const lastUserIdx = contents.findLastIndex((c) => c.role === "user" && textOf(c.parts));
    const results = contents
      .slice(lastUserIdx)
      .flatMap((c) => c.parts ?? [])
      .filter((p) => p.functionResponse)
      .map((p) => p.functionResponse.response?.content ?? JSON.stringify(p.functionResponse.response));
    const step = chatScript(
      textOf(contents[lastUserIdx]?.parts),
      results,
      (body.tools ?? []).some((t) => t.functionDeclarations?.length),
    );
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
