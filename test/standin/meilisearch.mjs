// Meilisearch stand-in (REST API) that really stores documents:
//   GET   /indexes/UID                → the index (404 index_not_found when missing)
//   POST  /indexes {uid, primaryKey}  → a task;  PATCH /indexes/UID/settings {embedders, filterableAttributes} → a task
//   POST  /indexes/UID/documents [..] → a task (documents need the primary key and, with an embedder,
//         _vectors.EMBEDDER.embeddings of its dimensions: the task fails otherwise)
//   POST  /indexes/UID/documents/delete-batch [ids] → a task;  GET /tasks/N → {uid, status, error}
//   POST  /indexes/UID/search {q, vector, limit, filter, hybrid: {semanticRatio, embedder}} → {hits}
// Tasks are done when asked ("enqueued" first, then "succeeded" or "failed"). Hybrid scores:
// semanticRatio × cosine similarity (mapped to [0, 1]) + (1 − semanticRatio) × the share of the
// query's words in pageContent, best first, as _rankingScore. Filters: `a.b = 'x'` (or != ) joined
// by AND. Errors as Meilisearch's: {message, code, type, link}. Auth (a master key set): no
// `Authorization: Bearer` → 401, a key not starting "ms-search-" / "ms-admin-" → 403, a search key
// doing anything but search → 403; indexes named "open-…" need none. Index "down" answers 500, "hang" never answers.
// GET /dump/UID → {settings, documents} (for tests); GET /requests lists what was received.
import { hang, serveStandin } from "./base.mjs";

const indexes = new Map(); // uid → {primaryKey, settings, documents: Map}
const tasks = new Map(); // uid → {status, error, run}
let nextTask = 1;

const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const cosine = (a, b) => {
  const n = Math.sqrt(dot(a, a) * dot(b, b));
  return n ? dot(a, b) / n : 0;
};
const valueAt = (doc, path) => path.split(".").reduce((v, k) => (v && typeof v === "object" ? v[k] : undefined), doc);
function matches(doc, filter) {
  return filter.split(/\s+AND\s+/i).every((part) => {
    const m = /^\s*([\w.]+)\s*(=|!=)\s*(?:'([^']*)'|"([^"]*)"|(\S+))\s*$/.exec(part);
    if (!m) throw new Error(`unsupported filter ${part}`);
    const want = m[3] ?? m[4] ?? m[5];
    const got = valueAt(doc, m[1]);
    return m[2] === "=" ? String(got) === want : String(got) !== want;
  });
}

export function startMeilisearchStandin() {
  return serveStandin(async ({ req, res, url, body, json }) => {
    const error = (status, code, message) => json(status, { message, code, type: "invalid_request", link: "https://docs.meilisearch.com" });
    const enqueue = (run) => {
      const uid = nextTask++;
      tasks.set(uid, { status: "enqueued", error: null, run });
      return json(202, { taskUid: uid, status: "enqueued", type: "documentAdditionOrUpdate" });
    };
    const dump = /^\/dump\/([^/]+)$/.exec(url.pathname);
    if (dump) {
      const ix = indexes.get(dump[1]);
      return ix ? json(200, { settings: ix.settings, documents: [...ix.documents.values()] }) : error(404, "index_not_found", "no index");
    }
    const taskRoute = /^\/tasks\/(\d+)$/.exec(url.pathname);
    const route = /^\/indexes(?:\/([^/]+)(\/settings|\/documents|\/documents\/delete-batch|\/search)?)?$/.exec(url.pathname);
    if (!taskRoute && !route) return error(404, "not_found", `no route ${req.method} ${url.pathname}`);
    const uid = route ? decodeURIComponent(route[1] ?? body?.uid ?? "") : "";
    const op = route?.[2] ?? "";
    if (!uid.startsWith("open-") && !taskRoute) {
      const auth = String(req.headers.authorization ?? "");
      if (!auth) return error(401, "missing_authorization_header", "The Authorization header is missing.");
      const key = auth.replace(/^Bearer /, "");
      // A search key may only search (Meilisearch's default "search" action).
      if (!key.startsWith("ms-admin-") && !(key.startsWith("ms-search-") && op === "/search"))
        return error(403, "invalid_api_key", "The provided API key is invalid.");
    }
    if (taskRoute) {
      const t = tasks.get(Number(taskRoute[1]));
      if (!t) return error(404, "task_not_found", "no task");
      if (t.status === "enqueued") t.status = "processing";
      else if (t.status === "processing") {
        const failure = t.run();
        t.status = failure ? "failed" : "succeeded";
        t.error = failure ? { message: failure, code: "invalid_document_fields" } : null;
      }
      return json(200, { uid: Number(taskRoute[1]), status: t.status, error: t.error });
    }
    if (uid === "down") return error(500, "internal", "the index is having a bad day");
    if (uid === "hang") return hang(res);
    const ix = indexes.get(uid);
    if (!route[1] && req.method === "POST")
      return enqueue(() => {
        if (indexes.has(uid)) return `Index \`${uid}\` already exists.`;
        indexes.set(uid, { primaryKey: body.primaryKey, settings: { filterableAttributes: [], embedders: {} }, documents: new Map() });
      });
    if (!ix) return error(404, "index_not_found", `Index \`${uid}\` not found.`);
    if (!op && req.method === "GET") return json(200, { uid, primaryKey: ix.primaryKey });
    if (op === "/settings" && req.method === "PATCH")
      return enqueue(() => {
        // Documents already there must fit a changed embedder.
        for (const [name, e] of Object.entries(body.embedders ?? {}))
          for (const d of ix.documents.values()) {
            const v = d._vectors?.[name]?.embeddings;
            if (v && v.length !== e.dimensions)
              return `Index \`${uid}\`: Invalid vector dimensions: expected: \`${e.dimensions}\`, found: \`${v.length}\`.`;
          }
        Object.assign(ix.settings, body);
      });
    if (op === "/documents" && req.method === "POST")
      return enqueue(() => {
        for (const d of body) {
          if (d[ix.primaryKey] === undefined) return `Document doesn't have a \`${ix.primaryKey}\` attribute`;
          for (const [name, e] of Object.entries(ix.settings.embedders)) {
            const v = d._vectors?.[name]?.embeddings;
            if (v?.length !== e.dimensions)
              return `Index \`${uid}\`: Invalid vector dimensions: expected: \`${e.dimensions}\`, found: \`${v?.length}\`.`;
          }
        }
        for (const d of body) ix.documents.set(String(d[ix.primaryKey]), d);
      });
    if (op === "/documents/delete-batch" && req.method === "POST")
      return enqueue(() => {
        for (const id of body) ix.documents.delete(String(id));
      });
    if (op === "/search" && req.method === "POST") {
      const embedder = ix.settings.embedders[body.hybrid?.embedder];
      if (body.hybrid && !embedder)
        return error(400, "invalid_search_embedder", `Cannot find embedder with name \`${body.hybrid.embedder}\`.`);
      const ratio = body.hybrid?.semanticRatio ?? 0;
      const words = String(body.q ?? "")
        .toLowerCase()
        .split(/\W+/)
        .filter(Boolean);
      const hits = [...ix.documents.values()]
        .filter((d) => !body.filter || matches(d, body.filter))
        .map((d) => {
          const v = d._vectors?.[body.hybrid?.embedder]?.embeddings;
          const semantic = v && body.vector ? (1 + cosine(body.vector, v)) / 2 : 0;
          const text = String(d.pageContent ?? "").toLowerCase();
          const keyword = words.length ? words.filter((w) => text.includes(w)).length / words.length : 0;
          return { d, score: ratio * semantic + (1 - ratio) * keyword };
        })
        .sort((a, b) => b.score - a.score)
        .slice(0, body.limit ?? 20)
        .map(({ d, score }) => {
          const { _vectors, ...rest } = d;
          return { ...rest, ...(body.showRankingScore ? { _rankingScore: score } : {}) };
        });
      return json(200, { hits, query: body.q, limit: body.limit, estimatedTotalHits: hits.length });
    }
    return error(404, "not_found", `no route ${req.method} ${url.pathname}`);
  });
}
