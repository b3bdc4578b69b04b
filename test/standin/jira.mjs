// Jira REST API stand-in (Node, vitest globalSetup) for the jiraTool tests, and a small HTTP API for
// the API chains' tests (apiChainRoutes below).
// Jira: /rest/api/3/… (Jira Cloud: Basic jira-user@example.com:jira-token-1234567; rich text must be
// Atlassian Document Format) and /rest/api/2/… (Server/Data Center: Bearer jira-pat-7654321; rich text
// must be a string). Wrong auth → 401, Jira's {errorMessages, errors} bodies for 400/404.
//   GET search?jql=project = KEY…&maxResults&startAt (v2; v3: 410)   GET search/jql?jql&fields&maxResults&nextPageToken (v3)
//   POST issue                GET|PUT|DELETE issue/{key}
//   PUT issue/{key}/assignee {accountId}                 POST issue/{key}/transitions {transition:{id}} (11, 21, 31)
//   GET|POST issue/{key}/comment                         GET|PUT|DELETE issue/{key}/comment/{id}
//   GET user/search?query   GET|POST|PUT|DELETE user(?accountId)
// Issues, comments and users are kept in memory; a project key or text holding a test's marker
// keeps tests apart; a project `BULK<n>…` lists n generated issues (search/jql pages of ≤ 100 with fields). GET /requests?contains=TEXT lists what was received (oldest first).
import { createServer } from "node:http";

export const JIRA_CLOUD = { username: "jira-user@example.com", accessToken: "jira-token-1234567" };
export const JIRA_PAT = "jira-pat-7654321";

const json = (res, status, body) => {
  if (body === undefined) {
    res.writeHead(status);
    return res.end();
  }
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};
const jiraError = (res, status, errorMessages, errors = {}) => json(res, status, { errorMessages, errors });
const NO_ISSUE = "Issue does not exist or you do not have permission to see it.";

function authorized(version, header = "") {
  if (version === "3") return header === `Basic ${Buffer.from(`${JIRA_CLOUD.username}:${JIRA_CLOUD.accessToken}`).toString("base64")}`;
  return header === `Bearer ${JIRA_PAT}`;
}

/** Rich text as the version wants it: v3 an ADF doc, v2 a string. Answers an error message or undefined. */
function richTextError(version, value) {
  if (value === undefined) return undefined;
  if (version === "2") return typeof value === "string" ? undefined : "Operation value must be a string";
  const ok = value && value.type === "doc" && value.version === 1 && Array.isArray(value.content);
  return ok ? undefined : "Operation value must be an Atlassian Document (see the Atlassian Document Format)";
}

/** A project `BULK<n>…` holds n generated issues (a long search without creating them one by one). */
const bulkIssues = (project, n) =>
  Array.from({ length: n }, (_, i) => ({
    id: String(900000 + i),
    key: `${project}-${i + 1}`,
    fields: { summary: `Bulk ${i + 1}`, project: { key: project }, status: { name: "To Do" } },
  }));

export async function startJiraStandin() {
  const requests = [];
  const issues = new Map();
  const counters = new Map();
  const users = new Map([["acc-1", { accountId: "acc-1", displayName: "Ada Lovelace", emailAddress: "ada@example.com", active: true }]]);
  let commentIds = 10000;

  function jira(version, method, rest, url, body, res) {
    const segs = rest.split("/").map(decodeURIComponent);
    const issue = segs[0] === "issue" && segs[1] ? issues.get(segs[1]) : undefined;
    const matching = () => {
      const project = /project\s*=\s*"?([\w-]+)"?/.exec(url.searchParams.get("jql") ?? "")?.[1];
      const bulk = /^BULK(\d+)/.exec(project ?? "");
      if (bulk) return bulkIssues(project, Number(bulk[1]));
      return [...issues.values()].filter((i) => !project || i.fields.project.key === project);
    };
    // Jira Cloud removed GET /search (CHANGE-2046): 410. /search/jql needs a bounded query, answers only
    // ids unless `fields` asks for more, at most 100 issues a page, and pages by nextPageToken.
    if (version === "3" && segs[0] === "search" && segs.length === 1 && method === "GET")
      return jiraError(res, 410, ["The requested API has been removed. Please migrate to the /rest/api/3/search/jql API."]);
    if (version === "3" && segs[0] === "search" && segs[1] === "jql" && method === "GET") {
      const jql = (url.searchParams.get("jql") ?? "").trim();
      if (!jql || /^order by/i.test(jql))
        return jiraError(res, 400, ["Unbounded JQL queries are not allowed here. Please add a search restriction to your query."]);
      const start = Number(Buffer.from(url.searchParams.get("nextPageToken") ?? "MA", "base64url").toString() || 0);
      // Jira caps the page below what maxResults asks: 100 issues with fields, 5000 ids (its reference).
      const size = Math.min(url.searchParams.get("fields") ? 100 : 5000, Number(url.searchParams.get("maxResults") ?? 50));
      const all = matching();
      const fields = url.searchParams.get("fields");
      const page = all.slice(start, start + size).map((i) => (fields ? i : { id: i.id }));
      const more = start + page.length < all.length;
      return json(res, 200, { issues: page, ...(more ? { nextPageToken: Buffer.from(String(start + size)).toString("base64url") } : {}) });
    }
    if (version === "2" && segs[0] === "search" && method === "GET") {
      const all = matching();
      const startAt = Number(url.searchParams.get("startAt") ?? 0);
      const maxResults = Number(url.searchParams.get("maxResults") ?? 50);
      return json(res, 200, { startAt, maxResults, total: all.length, issues: all.slice(startAt, startAt + maxResults) });
    }
    if (segs[0] === "issue" && segs.length === 1 && method === "POST") {
      const f = body?.fields ?? {};
      const errors = {};
      if (!f.project?.key) errors.project = "Specify a valid project ID or key";
      if (!f.issuetype?.name) errors.issuetype = "Specify an issue type";
      if (!f.summary) errors.summary = "You must specify a summary of the issue.";
      const bad = richTextError(version, f.description);
      if (bad) errors.description = bad;
      if (Object.keys(errors).length) return jiraError(res, 400, [], errors);
      const n = (counters.get(f.project.key) ?? 0) + 1;
      counters.set(f.project.key, n);
      const key = `${f.project.key}-${n}`;
      const id = String(10000 + issues.size);
      issues.set(key, { id, key, fields: { ...f, status: { name: "To Do" } }, comments: [] });
      return json(res, 201, { id, key, self: `${url.origin}/rest/api/${version}/issue/${id}` });
    }
    if (segs[0] === "issue" && !issue) return jiraError(res, 404, [NO_ISSUE]);
    if (segs[0] === "issue" && segs.length === 2) {
      if (method === "GET") return json(res, 200, { id: issue.id, key: issue.key, fields: issue.fields });
      if (method === "DELETE") {
        issues.delete(issue.key);
        return json(res, 204);
      }
      if (method === "PUT") {
        const bad = richTextError(version, body?.fields?.description);
        if (bad) return jiraError(res, 400, [], { description: bad });
        Object.assign(issue.fields, body?.fields ?? {});
        return json(res, 204);
      }
    }
    if (segs[2] === "assignee" && method === "PUT") {
      issue.fields.assignee = { accountId: body?.accountId };
      return json(res, 204);
    }
    if (segs[2] === "transitions" && method === "POST") {
      const id = String(body?.transition?.id ?? "");
      const to = { 11: "To Do", 21: "In Progress", 31: "Done" }[id];
      if (!to) return jiraError(res, 400, [`Transition id '${id}' is not valid for this issue.`]);
      issue.fields.status = { name: to };
      return json(res, 204);
    }
    if (segs[2] === "comment") {
      const comment = segs[3] ? issue.comments.find((c) => c.id === segs[3]) : undefined;
      if (segs[3] && !comment) return jiraError(res, 404, [`Can not find a comment for the id: ${segs[3]}.`]);
      if (!segs[3] && method === "GET") {
        const startAt = Number(url.searchParams.get("startAt") ?? 0);
        const maxResults = Number(url.searchParams.get("maxResults") ?? 50);
        const page = issue.comments.slice(startAt, startAt + maxResults);
        return json(res, 200, { startAt, maxResults, total: issue.comments.length, comments: page });
      }
      if (method === "POST" || method === "PUT") {
        const bad = richTextError(version, body?.body) ?? (body?.body === undefined ? "Comment body can not be empty!" : undefined);
        if (bad) return jiraError(res, 400, [], { comment: bad });
        if (method === "PUT") {
          comment.body = body.body;
          return json(res, 200, comment);
        }
        const created = {
          id: String(commentIds++),
          body: body.body,
          author: { accountId: "acc-1" },
          ...(body.visibility ? { visibility: body.visibility } : {}),
        };
        issue.comments.push(created);
        return json(res, 201, created);
      }
      if (method === "GET") return json(res, 200, comment);
      if (method === "DELETE") {
        issue.comments.splice(issue.comments.indexOf(comment), 1);
        return json(res, 204);
      }
    }
    if (segs[0] === "user" && segs[1] === "search" && method === "GET") {
      const q = (url.searchParams.get("query") ?? "").toLowerCase();
      const found = [...users.values()].filter((u) => `${u.displayName} ${u.emailAddress}`.toLowerCase().includes(q));
      return json(res, 200, found.slice(0, Number(url.searchParams.get("maxResults") ?? 50)));
    }
    if (segs[0] === "user" && segs.length === 1) {
      if (method === "POST") {
        if (!body?.emailAddress) return jiraError(res, 400, [], { emailAddress: "You must specify an email address." });
        const accountId = `acc-${users.size + 1}`;
        users.set(accountId, { accountId, displayName: body.displayName, emailAddress: body.emailAddress, active: true });
        return json(res, 201, users.get(accountId));
      }
      const user = users.get(url.searchParams.get("accountId") ?? "");
      if (!user) return jiraError(res, 404, [`The user with account ID '${url.searchParams.get("accountId")}' does not exist`]);
      if (method === "GET") return json(res, 200, user);
      if (method === "PUT") return json(res, 200, Object.assign(user, body ?? {}));
      if (method === "DELETE") {
        users.delete(user.accountId);
        return json(res, 204);
      }
    }
    return jiraError(res, 404, [`No route for ${method} ${rest}`]);
  }

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
      const record = {
        method: req.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: { authorization: req.headers.authorization ?? null, "content-type": req.headers["content-type"] ?? null },
        body: body ?? null,
      };
      requests.push(record);
      if (requests.length > 2000) requests.splice(0, requests.length - 2000);
      const m = /^\/rest\/api\/([23])\/(.+)$/.exec(url.pathname);
      if (m) {
        if (!authorized(m[1], req.headers.authorization))
          return jiraError(res, 401, ["You are not authenticated. Authentication required to perform this operation."]);
        return jira(m[1], req.method ?? "GET", m[2], url, body, res);
      }
      if (apiChainRoutes(req, url, body, res)) return;
      return json(res, 404, { error: `no route ${req.method} ${url.pathname}` });
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

// ---- A small HTTP API for the API chains (GET/POST apiChain, openApiChain) -----------------------
//   GET  /weather/v1/forecast?city=C[&days=N]  → {city, days, forecast, token: the X-Weather-Key header}
//   POST /weather/v1/report {…}                 → 201 {stored: the body, token}
//   GET  /weather/v1/missing                    → 404 {error}
//   GET  /weather/openapi.yaml                  → an OpenAPI 3 spec of those, servers[0] = this origin + /weather
const spec = (origin) => `openapi: 3.0.0
info:
  title: Weather
  version: "1.0"
servers:
  - url: ${origin}/weather
paths:
  /v1/forecast:
    get:
      operationId: getForecast
      description: The forecast for a city
      parameters:
        - name: city
          in: query
          required: true
          schema:
            type: string
        - name: days
          in: query
          schema:
            type: integer
  /v1/report:
    post:
      operationId: postReport
      description: Report the weather seen in a city
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                city:
                  type: string
                sky:
                  type: string
`;

/** Answers the API chains' routes (true when it did). */
function apiChainRoutes(req, url, body, res) {
  const token = req.headers["x-weather-key"] ?? null;
  if (url.pathname === "/weather/openapi.yaml" && req.method === "GET") {
    res.writeHead(200, { "content-type": "text/yaml; charset=utf-8" });
    res.end(spec(url.origin));
    return true;
  }
  if (url.pathname === "/weather/v1/forecast" && req.method === "GET") {
    const city = url.searchParams.get("city") ?? "";
    json(res, 200, { city, days: Number(url.searchParams.get("days") ?? 1), forecast: `sunny in ${city}`, token });
    return true;
  }
  if (url.pathname === "/weather/v1/report" && req.method === "POST") {
    json(res, 201, { stored: body ?? null, token });
    return true;
  }
  if (url.pathname.startsWith("/weather/")) {
    json(res, 404, { error: `no weather at ${url.pathname}` });
    return true;
  }
  return false;
}
