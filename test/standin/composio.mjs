// Composio backend stand-in (Node, vitest globalSetup) for the composio tool, speaking API v3 only
// (docs/public/openapi.json of github.com/ComposioHQ/composio): v1/v2 paths answer 410, as Composio now
// does. The key is checked in x-api-key: one starting with "composio-key-" is valid (a test puts its
// marker after it), anything else → 401. Errors are v3's {error: {message, code, status, request_id,
// suggested_fix}}. Lists page with a cursor (`next_cursor`, null on the last page), PAGE items unless
// `limit` asks for more (clamped at the documented max 1000).
//   GET  /api/v3/toolkits                       {items: toolkits (slug, name, no_auth, meta.description)}
//   GET  /api/v3/toolkits/{slug}                the toolkit (auth_config_details: [{mode: "NO_AUTH"}] for hackernews), 404
//   GET  /api/v3/tools?tool_slugs=A,B | ?toolkit_slug=T   tools at `toolkit_versions` (absent: the oldest, 00000000_00;
//        "latest": the newest): slug, name, description, input_parameters, version, available_versions
//   GET  /api/v3/connected_accounts?toolkit_slugs=&statuses=   accounts (statuses checked against the enum)
//   GET  /api/v3/connected_accounts/{nanoid}    the account, 404 unknown
//   POST /api/v3/tools/execute/{slug}           {connected_account_id, user_id, arguments | text, version} →
//        {data, error, successful, log_id}: the tool must exist at `version` (absent: 00000000_00) else 404,
//        an auth tool needs a known account (400 "No connected account found", ComposioHQ/composio#1838)
//        that is ACTIVE (422), required arguments (400); a repo named "missing" is an unsuccessful answer.
// GET /requests?contains=TEXT lists what was received (oldest first); tests pass their key or marker.
import { createServer } from "node:http";

const PAGE = 2;
const MAX_LIMIT = 1000;
const BASE = "00000000_00";
const LATEST = "20250909_00";
const STATUSES = ["INITIALIZING", "INITIATED", "ACTIVE", "FAILED", "EXPIRED", "INACTIVE"];

const TOOLKITS = [
  { slug: "hackernews", name: "Hacker News", no_auth: true, description: "Hacker News reader", modes: ["NO_AUTH"] },
  { slug: "github", name: "GitHub", no_auth: false, description: "Code hosting", modes: ["OAUTH2"] },
];

const object = (properties, required = []) => ({ type: "object", properties, required });
const TOOLS = [
  {
    slug: "GITHUB_STAR_A_REPOSITORY_FOR_THE_AUTHENTICATED_USER",
    toolkit: "github",
    name: "Star a repository",
    description: "Star a repository for the authenticated user",
    input_parameters: object(
      { owner: { type: "string", description: "The account owner" }, repo: { type: "string", description: "The repository" } },
      ["owner", "repo"],
    ),
    versions: [BASE, LATEST],
  },
  {
    slug: "GITHUB_GET_THE_AUTHENTICATED_USER",
    toolkit: "github",
    name: "Get the authenticated user",
    description: "Get the authenticated user",
    input_parameters: object({}),
    versions: [BASE, LATEST],
  },
  {
    // Only in the newest version: listed and executed only when the version is asked for.
    slug: "GITHUB_CREATE_AN_ISSUE",
    toolkit: "github",
    name: "Create an issue",
    description: "Create an issue in a repository",
    input_parameters: object({ owner: { type: "string" }, repo: { type: "string" }, title: { type: "string" } }, [
      "owner",
      "repo",
      "title",
    ]),
    versions: [LATEST],
  },
  {
    slug: "HACKERNEWS_SEARCH_POSTS",
    toolkit: "hackernews",
    name: "Search posts",
    description: "Search Hacker News posts",
    input_parameters: object({ query: { type: "string" }, size: { type: "integer", default: 5 } }, ["query"]),
    versions: [BASE, LATEST],
  },
];

const account = (id, toolkit, user, status, created) => ({
  id,
  toolkit: { slug: toolkit },
  auth_config: { id: `ac_${toolkit}`, auth_scheme: "OAUTH2", is_composio_managed: true, is_disabled: false },
  user_id: user,
  status,
  created_at: created,
  updated_at: created,
  state: {},
  data: {},
  status_reason: null,
  is_disabled: false,
});
const ACCOUNTS = [
  account("ca_active1", "github", "user-ada", "ACTIVE", "2025-01-02T10:00:00.000Z"),
  account("ca_expired2", "github", "user-bob", "EXPIRED", "2024-06-01T10:00:00.000Z"),
  account("ca_active3", "github", "user-cy", "ACTIVE", "2025-03-04T10:00:00.000Z"),
  account("ca_slack4", "slack", "user-ada", "ACTIVE", "2025-01-02T10:00:00.000Z"),
  account("ca_active5", "github", "user-dee", "ACTIVE", "2025-05-06T10:00:00.000Z"),
];

const json = (res, status, body) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};
const CODES = { 400: 1803, 401: 1001, 404: 1404, 410: 1410, 422: 1422 };
const error = (res, status, message, suggested_fix = "") =>
  json(res, status, { error: { message, code: CODES[status] ?? 1000, status, request_id: "req-standin", suggested_fix } });

/** One page of a list: `cursor` is base64 of the page number (as Composio documents it), `limit` clamped. */
function page(url, items) {
  const limit = Math.min(Number(url.searchParams.get("limit")) || PAGE, MAX_LIMIT);
  const cursor = url.searchParams.get("cursor");
  const at = cursor ? Number(Buffer.from(cursor, "base64").toString("utf8")) : 1;
  const total = Math.max(1, Math.ceil(items.length / limit));
  const next = at < total ? Buffer.from(String(at + 1)).toString("base64") : null;
  return {
    items: items.slice((at - 1) * limit, at * limit),
    next_cursor: next,
    total_pages: total,
    current_page: at,
    total_items: items.length,
  };
}

/** Array query parameters: repeated or comma-separated. */
const many = (url, name) => (url.searchParams.has(name) ? url.searchParams.getAll(name).flatMap((v) => v.split(",")) : undefined);

/** The version a listing or an execution resolves to: absent → the oldest, "latest" → the newest. */
const versionOf = (asked) => (!asked ? BASE : asked === "latest" ? LATEST : asked);

const toolView = (t, version) => {
  const { versions, toolkit, ...rest } = t;
  return {
    ...rest,
    toolkit: { slug: toolkit, name: toolkit, logo: "" },
    no_auth: toolkit === "hackernews",
    version,
    available_versions: versions,
  };
};

function listTools(url, res) {
  const slugs = url.searchParams.get("tool_slugs")?.split(",");
  const toolkit = url.searchParams.get("toolkit_slug");
  const version = versionOf(url.searchParams.get("toolkit_versions"));
  const found = TOOLS.filter((t) => (slugs ? slugs.includes(t.slug) : t.toolkit === toolkit) && t.versions.includes(version));
  return json(
    res,
    200,
    page(
      url,
      found.map((t) => toolView(t, version)),
    ),
  );
}

function listAccounts(url, res) {
  const statuses = many(url, "statuses");
  const bad = statuses?.find((s) => !STATUSES.includes(s));
  if (bad) return error(res, 400, `Invalid enum value. Expected ${STATUSES.join(" | ")}, received '${bad}'`);
  const toolkits = many(url, "toolkit_slugs");
  const found = ACCOUNTS.filter((a) => (!toolkits || toolkits.includes(a.toolkit.slug)) && (!statuses || statuses.includes(a.status)));
  return json(res, 200, page(url, found));
}

/** What Composio checks before running a tool: the body's shape, the version, the account, the arguments. */
function validateExecute(tool, body) {
  if (!body || typeof body !== "object") return [400, "Request body must be a JSON object"];
  if (body.arguments !== undefined && body.text !== undefined) return [400, "arguments and text are mutually exclusive"];
  const version = versionOf(body.version);
  if (!tool.versions.includes(version)) return [404, `Tool ${tool.slug} not found for version ${version}`];
  if (tool.toolkit !== "hackernews") {
    const acc = ACCOUNTS.find((a) => a.id === body.connected_account_id);
    if (!acc) return [400, "No connected account found"];
    if (acc.status !== "ACTIVE") return [422, `Connected account ${acc.id} is not active (${acc.status})`];
  }
  const args = body.arguments ?? {};
  const missing = (tool.input_parameters.required ?? []).filter((p) => args[p] === undefined);
  if (missing.length) return [400, `Missing required arguments: ${missing.join(", ")}`];
  return undefined;
}

function execute(res, tool, body) {
  const refused = validateExecute(tool, body);
  if (refused) return error(res, refused[0], refused[1]);
  const args = body.arguments ?? {};
  const answer = (data, err) => json(res, 200, { data, error: err, successful: !err, log_id: "log_standin", session_info: null });
  if (args.repo === "missing") return answer({ status: 404 }, "404 Not Found: repository missing");
  if (tool.toolkit === "hackernews") return answer({ posts: [{ title: `HN on ${args.query}`, points: args.size ?? 5 }] });
  if (tool.slug === "GITHUB_CREATE_AN_ISSUE") return answer({ issue: `${args.owner}/${args.repo}: ${args.title}` });
  return answer({ details: `starred ${args.owner}/${args.repo ?? ""}`.trim() });
}

function route(req, url, body, res) {
  const path = url.pathname;
  if (/^\/api\/v[12]\//.test(path)) return error(res, 410, "This endpoint is no longer available. Please upgrade to v3 APIs.");
  const get = req.method === "GET";
  if (path === "/api/v3/toolkits" && get)
    return json(
      res,
      200,
      page(
        url,
        TOOLKITS.map(({ slug, name, no_auth, description }) => ({ slug, name, no_auth, meta: { description } })),
      ),
    );
  let m = /^\/api\/v3\/toolkits\/([^/]+)$/.exec(path);
  if (m && get) {
    const t = TOOLKITS.find((k) => k.slug === decodeURIComponent(m[1]));
    if (!t) return error(res, 404, `Toolkit ${decodeURIComponent(m[1])} not found`, "Check the toolkit slug");
    return json(res, 200, {
      slug: t.slug,
      name: t.name,
      enabled: true,
      auth_config_details: t.modes.map((mode) => ({ mode, name: mode })),
    });
  }
  if (path === "/api/v3/tools" && get) return listTools(url, res);
  if (path === "/api/v3/connected_accounts" && get) return listAccounts(url, res);
  m = /^\/api\/v3\/connected_accounts\/([^/]+)$/.exec(path);
  if (m && get) {
    const acc = ACCOUNTS.find((a) => a.id === decodeURIComponent(m[1]));
    return acc ? json(res, 200, acc) : error(res, 404, "Connected account not found");
  }
  m = /^\/api\/v3\/tools\/execute\/([^/]+)$/.exec(path);
  if (m && req.method === "POST") {
    const tool = TOOLS.find((t) => t.slug === decodeURIComponent(m[1]));
    return tool ? execute(res, tool, body) : error(res, 404, `Tool ${decodeURIComponent(m[1])} not found`);
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
      requests.push({
        method: req.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: { "x-api-key": req.headers["x-api-key"] ?? null },
        body: body ?? null,
      });
      if (requests.length > 2000) requests.splice(0, requests.length - 2000);
      if (!String(req.headers["x-api-key"] ?? "").startsWith("composio-key-"))
        return error(res, 401, "Invalid API key provided", "Pass a valid API key in the x-api-key header");
      return route(req, url, body, res);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}
