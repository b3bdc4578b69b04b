// Composio backend stand-in (Node, vitest globalSetup) for the composio tool: the REST paths
// composio-core 0.5's LangchainToolSet calls, the key checked in X-API-KEY: a key starting with
// "composio-key-" is valid (a test puts its marker after it), anything else → 401 with Composio's
// {message, status} error body.
//   GET  /api/v1/apps?additionalFields=auth_schemes      {items: apps}
//   GET  /api/v1/apps/{app}                              the app (no_auth: hackernews), 404 unknown
//   GET  /api/v2/actions?apps=A | ?actions=X,Y           {items: actions with JSON parameter schemas, page, totalPages}
//   GET  /api/v1/connectedAccounts?appNames=A            {items: accounts (one ACTIVE, one EXPIRED), page, totalPages}
//   GET  /api/v1/connectedAccounts/{id}                  the account, 404 unknown
//   POST /api/v2/actions/{action}/execute                {data, error, successful, successfull}: the input
//        checked against the action's required parameters (400 with details), an auth app's
//        connectedAccountId must be ACTIVE; a repo named "missing" is Composio's unsuccessful answer.
// GET /requests?contains=TEXT lists what was received (oldest first); tests pass their key or marker.
import { createServer } from "node:http";

const APPS = [
  { key: "hackernews", name: "hackernews", displayName: "Hacker News", description: "Hacker News reader", no_auth: true },
  { key: "github", name: "github", displayName: "GitHub", description: "Code hosting", no_auth: false },
];

const ACTIONS = [
  {
    name: "GITHUB_STAR_A_REPOSITORY_FOR_THE_AUTHENTICATED_USER",
    appKey: "github",
    appName: "github",
    description: "Star a repository for the authenticated user",
    parameters: {
      title: "StarARepositoryRequest",
      type: "object",
      properties: {
        owner: { title: "Owner", type: "string", description: "The account owner of the repository" },
        repo: { title: "Repo", type: "string", description: "The name of the repository" },
      },
      required: ["owner", "repo"],
    },
  },
  {
    name: "GITHUB_GET_THE_AUTHENTICATED_USER",
    appKey: "github",
    appName: "github",
    description: "Get the authenticated user",
    parameters: { title: "GetTheAuthenticatedUserRequest", type: "object", properties: {} },
  },
  {
    name: "HACKERNEWS_SEARCH_POSTS",
    appKey: "hackernews",
    appName: "hackernews",
    description: "Search Hacker News posts",
    parameters: {
      title: "SearchPostsRequest",
      type: "object",
      properties: {
        query: { title: "Query", type: "string", description: "What to search for" },
        size: { title: "Size", type: "integer", description: "How many posts", default: 5 },
      },
      required: ["query"],
    },
  },
];

const ACCOUNTS = [
  { id: "ca-active-1", appName: "github", clientUniqueUserId: "user-ada", status: "ACTIVE", createdAt: "2025-01-02T10:00:00.000Z" },
  { id: "ca-expired-2", appName: "github", clientUniqueUserId: "user-bob", status: "EXPIRED", createdAt: "2024-06-01T10:00:00.000Z" },
];

const json = (res, status, body) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};
const error = (res, status, message, extra = {}) => json(res, status, { message, status, requestId: "req-standin", ...extra });
const list = (items) => ({ items, page: 1, totalPages: 1 });

function execute(res, action, body) {
  const app = APPS.find((a) => a.key === action.appKey);
  if (!app.no_auth) {
    const account = ACCOUNTS.find((a) => a.id === body?.connectedAccountId);
    if (account?.status !== "ACTIVE") return error(res, 400, "Connected account not found or not active");
  }
  const input = body?.input ?? {};
  const missing = (action.parameters.required ?? []).filter((p) => input[p] === undefined);
  if (missing.length)
    return error(res, 400, "Invalid request data provided", { details: missing.map((p) => ({ field: p, error: "required" })) });
  if (input.repo === "missing")
    return json(res, 200, { data: {}, error: "404 Not Found: repository missing", successful: false, successfull: false });
  const data =
    action.appKey === "github"
      ? { details: `starred ${input.owner}/${input.repo ?? ""}`.trim() }
      : { posts: [{ title: `HN on ${input.query}`, points: input.size ?? 5 }] };
  return json(res, 200, { data, error: null, successful: true, successfull: true });
}

function route(req, url, body, res) {
  const path = url.pathname;
  if (path === "/api/v1/apps" && req.method === "GET") return json(res, 200, list(APPS));
  let m = /^\/api\/v1\/apps\/([^/]+)$/.exec(path);
  if (m) {
    const app = APPS.find((a) => a.key === decodeURIComponent(m[1]));
    return app ? json(res, 200, app) : error(res, 404, `App ${decodeURIComponent(m[1])} not found`);
  }
  if (path === "/api/v2/actions" && req.method === "GET") {
    const apps = url.searchParams.get("apps")?.split(",");
    const names = url.searchParams.get("actions")?.split(",");
    const items = ACTIONS.filter((a) => (!apps || apps.includes(a.appKey)) && (!names || names.includes(a.name)));
    return json(res, 200, list(items));
  }
  if (path === "/api/v1/connectedAccounts" && req.method === "GET") {
    const apps = url.searchParams.get("appNames")?.split(",");
    return json(res, 200, list(ACCOUNTS.filter((a) => !apps || apps.includes(a.appName))));
  }
  m = /^\/api\/v1\/connectedAccounts\/([^/]+)$/.exec(path);
  if (m) {
    const account = ACCOUNTS.find((a) => a.id === decodeURIComponent(m[1]));
    return account ? json(res, 200, account) : error(res, 404, "Connected account not found");
  }
  m = /^\/api\/v2\/actions\/([^/]+)\/execute$/.exec(path);
  if (m && req.method === "POST") {
    const action = ACTIONS.find((a) => a.name === decodeURIComponent(m[1]));
    return action ? execute(res, action, body) : error(res, 404, `Action ${decodeURIComponent(m[1])} not found`);
  }
  return error(res, 404, `no route ${req.method} ${path}`);
}

export async function startComposioStandin() {
  const requests = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
      const raw = Buffer.concat(chunks).toString("utf8");
      let body;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      if (url.pathname === "/requests" && req.method === "GET") {
        const contains = url.searchParams.get("contains") ?? "";
        return json(
          res,
          200,
          requests.filter((r) => JSON.stringify(r).includes(contains)),
        );
      }
      const h = req.headers;
      requests.push({
        method: req.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: { "x-api-key": h["x-api-key"] ?? null, "x-source": h["x-source"] ?? null, "x-runtime": h["x-runtime"] ?? null },
        body: body ?? null,
      });
      if (requests.length > 2000) requests.splice(0, requests.length - 2000);
      if (!String(req.headers["x-api-key"] ?? "").startsWith("composio-key-")) return error(res, 401, "Invalid API key provided");
      return route(req, url, body, res);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}
