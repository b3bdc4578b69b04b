// An OAuth2 provider's token endpoint (RFC 6749 §4.1.3 and §6), for the /oauth2-credential tests:
//   POST /token, form-encoded, client "oauth-client" / "oauth-secret" (else 401 invalid_client);
//     grant_type=authorization_code: a code starting "good-" answers tokens (expires_in 3600), one
//       starting "short-" tokens expiring in 60 s (within the 5-minute refresh margin), any other
//       400 invalid_grant (one starting "slack-" a 200 {ok: false, error: "invalid_code"}, as Slack refuses);
//       the answer carries an extra field a server must not store;
//     grant_type=refresh_token: a refresh token starting "rt-" answers a new access token (no new
//       refresh token, as Google); one starting "rotate-" a new refresh token too (as Microsoft);
//       "revoked-…" 400 invalid_grant; "slow-…" answers after 300 ms.
//   GET /authorize (the consent page, already consented): a known client_id with response_type=code is
//     redirected (302) to its redirect_uri with code=good-consent-N and the state it was sent.
// GET /requests?contains=<marker> lists the requests received ({path, form}) whose body holds the marker.
import { createServer } from "node:http";

export const OAUTH_CLIENT = { clientId: "oauth-client", clientSecret: "oauth-secret" };

export function startOAuth2Standin() {
  const requests = [];
  let issued = 0;
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
      const marker = url.searchParams.get("contains") ?? "";
      return json(
        200,
        requests.filter((r) => r.raw.includes(marker)).map(({ raw: _raw, ...r }) => r),
      );
    }
    if (url.pathname === "/authorize" && req.method === "GET") {
      const q = Object.fromEntries(url.searchParams);
      requests.push({ path: url.pathname, form: q, raw: url.search });
      const target = q.redirect_uri ? new URL(q.redirect_uri) : null;
      if (q.client_id !== OAUTH_CLIENT.clientId || q.response_type !== "code" || !target)
        return json(400, { error: "invalid_request", error_description: "unknown client, or no redirect_uri" });
      target.searchParams.set("code", `good-consent-${++issued}`);
      target.searchParams.set("state", q.state ?? "");
      res.writeHead(302, { location: String(target) });
      return res.end();
    }
    const form = Object.fromEntries(new URLSearchParams(raw));
    requests.push({ path: url.pathname, contentType: req.headers["content-type"], form, raw });
    if (url.pathname !== "/token" || req.method !== "POST") return json(404, { error: "not_found" });
    if (form.client_id !== OAUTH_CLIENT.clientId || form.client_secret !== OAUTH_CLIENT.clientSecret)
      return json(401, { error: "invalid_client", error_description: "Client authentication failed" });
    issued++;
    if (form.grant_type === "authorization_code") {
      const code = form.code ?? "";
      // Slack's way: a refused code is a 200 with {ok: false, error}.
      if (code.startsWith("slack-")) return json(200, { ok: false, error: "invalid_code" });
      if (!code.startsWith("good-") && !code.startsWith("short-"))
        return json(400, { error: "invalid_grant", error_description: "The authorization code is invalid or expired" });
      return json(200, {
        access_token: `at-${code}-${issued}`,
        refresh_token: `rt-${code}`,
        token_type: "Bearer",
        expires_in: code.startsWith("short-") ? 60 : 3600,
        scope: form.scope ?? "",
        credentialName: "overwritten-by-the-provider",
      });
    }
    if (form.grant_type === "refresh_token") {
      const token = form.refresh_token ?? "";
      if (token.startsWith("slow-")) await new Promise((r) => setTimeout(r, 300));
      if (!/^(rt|rotate|slow)-/.test(token))
        return json(400, { error: "invalid_grant", error_description: "Token has been expired or revoked." });
      return json(200, {
        access_token: `at-refreshed-${issued}`,
        token_type: "Bearer",
        expires_in: 3600,
        ...(token.startsWith("rotate-") ? { refresh_token: `rotate-${issued}` } : {}),
      });
    }
    return json(400, { error: "unsupported_grant_type" });
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
