// Meilisearch stand-in (REST API) that really stores documents:
//   GET   /indexes/UID                → the index (404 index_not_found when missing)
//   POST  /indexes {uid, primaryKey}  → a task;  PATCH /indexes/UID/settings {embedders, filterableAttributes} → a task
//   POST  /indexes/UID/documents [..] → a task
//   POST  /indexes/UID/documents/delete-batch [ids] → a task;  GET /tasks/N → {uid, status, error}
//   POST  /indexes/UID/search {q, vector, limit, filter, hybrid: {semanticRatio, embedder}} → {hits}
// Tasks are done when asked ("enqueued" first, then "succeeded" or "failed"). Hybrid scores:
// semanticRatio × cosine similarity (mapped to [0, 1]) + (1 − semanticRatio) × the share of the
// query's words in pageContent, best first, as _rankingScore. Filters: `a.b = 'x'` (or != ) joined
// by AND. Errors as Meilisearch's: {message, code, type, link}. Auth (a master key set): no
// `Authorization: Bearer` → 401, a key not starting "ms-search-" / "ms-admin-" → 403, a search key
// doing anything but search → 403; indexes named "open-…" need none. Index "down" answers 500, "hang" never answers.
// GET /dump/UID → {settings, documents} (for tests); GET /requests lists what was received (a document
// addition over 1 MB is recorded as {documents, bytes}, so the list stays small).
//
// Requests are checked as Meilisearch documents them (its API reference, "Known limitations", the
// errors it answers in its own test suite, github.com/meilisearch/meilisearch), with its messages:
//   payload     at most 100 MB a request (--http-payload-size-limit's default): 413 payload_too_large
//   index uid   letters, digits, - and _, at most 400 bytes (400 invalid_index_uid)
//   settings    an embedder's source known; userProvided needs `dimensions` (a positive integer);
//               filterableAttributes a list of names (400 invalid_settings_*)
//   documents   a JSON array of objects; in the task (which then fails — the 202 said nothing): the primary
//               key present (missing_document_id) and an id of a-z A-Z 0-9 - _ at most 511 bytes, or an
//               integer (invalid_document_id); `_vectors.EMBEDDER` an array of numbers, an array of arrays,
//               or {embeddings, regenerate: boolean}, of the embedder's dimensions (invalid_vector_dimensions)
//   search      limit a non-negative integer; a `vector` only with `hybrid`; hybrid.embedder named and
//               configured, semanticRatio 0..1; the vector of the embedder's dimensions; a filter only on
//               filterable attributes (or fields inside them): 400 invalid_search_*
import { hang, serveStandin } from "./base.mjs";

const indexes = new Map(); // uid → {primaryKey, settings, documents: Map}
const tasks = new Map(); // uid → {status, error, run}
let nextTask = 1;

const MAX_PAYLOAD_BYTES = 100_000_000;
const RECORDED_BODY_BYTES = 1_000_000;
const INDEX_UID = /^[A-Za-z0-9_-]{1,400}$/;
const DOCUMENT_ID = /^[A-Za-z0-9_-]{1,511}$/;
const EMBEDDER_SOURCES = new Set(["userProvided", "openAi", "huggingFace", "ollama", "rest", "composite"]);

const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const cosine = (a, b) => {
  const n = Math.sqrt(dot(a, a) * dot(b, b));
  return n ? dot(a, b) / n : 0;
};
const valueAt = (doc, path) => path.split(".").reduce((v, k) => (v && typeof v === "object" ? v[k] : undefined), doc);
const FILTER_PART = /^\s*([\w.]+)\s*(=|!=)\s*(?:'([^']*)'|"([^"]*)"|(\S+))\s*$/;
const filterParts = (filter) => filter.split(/\s+AND\s+/i);
function matches(doc, filter) {
  return filterParts(filter).every((part) => {
    const m = FILTER_PART.exec(part);
    const want = m[3] ?? m[4] ?? m[5];
    const got = valueAt(doc, m[1]);
    return m[2] === "=" ? String(got) === want : String(got) !== want;
  });
}

class MeiliError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}
const refuse = (status, code, message) => {
  throw new MeiliError(status, code, message);
};

function validateIndexUid(uid) {
  if (typeof uid !== "string" || !INDEX_UID.test(uid) || Buffer.byteLength(uid) > 400)
    refuse(
      400,
      "invalid_index_uid",
      `\`${uid}\` is not a valid index uid. Index uid can be an integer or a string containing only alphanumeric characters, ` +
        "hyphens (-) and underscores (_), and can not be more than 400 bytes.",
    );
}

function validateSettings(body) {
  for (const [name, e] of Object.entries(body.embedders ?? {})) {
    if (e === null) continue;
    if (!EMBEDDER_SOURCES.has(e?.source))
      refuse(400, "invalid_settings_embedders", `Unknown value \`${e?.source}\` at \`.embedders.${name}.source\`.`);
    if (e.source === "userProvided" && !(Number.isInteger(e.dimensions) && e.dimensions > 0))
      refuse(400, "invalid_settings_embedders", `\`.embedders.${name}\`: Field \`dimensions\` is mandatory for source \`userProvided\`.`);
  }
  const filterable = body.filterableAttributes;
  if (filterable !== undefined && filterable !== null && !(Array.isArray(filterable) && filterable.every((a) => typeof a === "string")))
    refuse(400, "invalid_settings_filterable_attributes", "Invalid value type at `.filterableAttributes`: expected an array of strings.");
}

/** Why Meilisearch fails a document addition's task ({message, code}), or undefined. */
function documentsFailure(documents, ix, uid) {
  for (const d of documents) {
    const id = d[ix.primaryKey];
    if (id === undefined)
      return {
        code: "missing_document_id",
        message: `Document doesn't have a \`${ix.primaryKey}\` attribute: \`${JSON.stringify(d).slice(0, 100)}\`.`,
      };
    if (!(Number.isInteger(id) && id >= 0) && !(typeof id === "string" && DOCUMENT_ID.test(id) && Buffer.byteLength(id) <= 511))
      return {
        code: "invalid_document_id",
        message:
          `Document identifier \`${JSON.stringify(id)}\` is invalid. A document identifier can be of type integer or string, only ` +
          "composed of alphanumeric characters (a-z A-Z 0-9), hyphens (-) and underscores (_), and can not be more than 511 bytes.",
      };
    for (const [name, entry] of Object.entries(d._vectors ?? {})) {
      const embeddings = entry && !Array.isArray(entry) && typeof entry === "object" ? entry.embeddings : entry;
      if (
        entry &&
        !Array.isArray(entry) &&
        typeof entry === "object" &&
        entry.regenerate !== undefined &&
        typeof entry.regenerate !== "boolean"
      )
        return {
          code: "invalid_vectors",
          message: `Bad embedder configuration in the document with id: \`${id}\`: \`._vectors.${name}.regenerate\` is not a boolean.`,
        };
      const vectors = Array.isArray(embeddings?.[0]) ? embeddings : embeddings === undefined || embeddings === null ? [] : [embeddings];
      if (!vectors.every((v) => Array.isArray(v) && v.every((x) => typeof x === "number")))
        return {
          code: "invalid_vectors",
          message: `Bad embedder configuration in the document with id: \`${id}\`: \`._vectors.${name}\` is not vectors.`,
        };
      const e = ix.settings.embedders[name];
      const wrong = e && vectors.find((v) => v.length !== e.dimensions);
      if (wrong)
        return {
          code: "invalid_vector_dimensions",
          message: `Index \`${uid}\`: Invalid vector dimensions: expected: \`${e.dimensions}\`, found: \`${wrong.length}\`.`,
        };
    }
  }
  return undefined;
}

/** The search's refusals (limit, hybrid, vector, filter), as Meilisearch answers them before searching. */
function validateSearch(body, ix) {
  if (body.limit !== undefined && !(Number.isInteger(body.limit) && body.limit >= 0))
    refuse(400, "invalid_search_limit", `Invalid value type at \`.limit\`: expected a positive integer, but found \`${body.limit}\`.`);
  if (body.vector !== undefined && !body.hybrid)
    refuse(400, "missing_search_hybrid", "Invalid request: missing `hybrid` parameter when `vector` is present.");
  if (body.hybrid) {
    const { embedder, semanticRatio } = body.hybrid;
    if (typeof embedder !== "string") refuse(400, "bad_request", "Missing field `embedder` inside `.hybrid`");
    if (semanticRatio !== undefined && !(typeof semanticRatio === "number" && semanticRatio >= 0 && semanticRatio <= 1))
      refuse(
        400,
        "invalid_search_semantic_ratio",
        "Invalid value at `.hybrid.semanticRatio`: the value of `semanticRatio` is invalid, expected a float between `0.0` and `1.0`.",
      );
    const e = ix.settings.embedders[embedder];
    if (!e) refuse(400, "invalid_search_embedder", `Cannot find embedder with name \`${embedder}\`.`);
    if (body.vector !== undefined && (!Array.isArray(body.vector) || body.vector.length !== e.dimensions))
      refuse(
        400,
        "invalid_vector_dimensions",
        `Invalid vector dimensions: expected: \`${e.dimensions}\`, found: \`${body.vector?.length}\`.`,
      );
  }
  if (body.filter !== undefined && body.filter !== null && body.filter !== "") {
    if (typeof body.filter !== "string")
      refuse(400, "invalid_search_filter", "Invalid syntax for the filter parameter: expected a string.");
    const filterable = ix.settings.filterableAttributes ?? [];
    for (const part of filterParts(body.filter)) {
      const m = FILTER_PART.exec(part);
      if (!m) refuse(400, "invalid_search_filter", `Was expecting an operation \`=\`, \`!=\`, … at \`${part.trim()}\`.`);
      if (!filterable.some((a) => m[1] === a || m[1].startsWith(`${a}.`)))
        refuse(
          400,
          "invalid_search_filter",
          filterable.length
            ? `Attribute \`${m[1]}\` is not filterable. Available filterable attributes are: \`${filterable.join("`, `")}\`.`
            : `Attribute \`${m[1]}\` is not filterable. This index does not have configured filterable attributes.`,
        );
    }
  }
}

function search(body, ix) {
  const ratio = body.hybrid?.semanticRatio ?? 0.5;
  const words = String(body.q ?? "")
    .toLowerCase()
    .split(/\W+/)
    .filter(Boolean);
  const vectorsOf = (d) => {
    const entry = d._vectors?.[body.hybrid?.embedder];
    const embeddings = entry && !Array.isArray(entry) && typeof entry === "object" ? entry.embeddings : entry;
    return Array.isArray(embeddings?.[0]) ? embeddings : embeddings ? [embeddings] : [];
  };
  const hits = [...ix.documents.values()]
    .filter((d) => !body.filter || matches(d, body.filter))
    .map((d) => {
      const semantic = body.vector ? Math.max(0, ...vectorsOf(d).map((v) => (1 + cosine(body.vector, v)) / 2)) : 0;
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
  return { hits, query: body.q, limit: body.limit, estimatedTotalHits: hits.length };
}

export function startMeilisearchStandin() {
  return serveStandin(async ({ req, res, url, body, raw, record, json }) => {
    const error = (status, code, message) =>
      json(status, { message, code, type: "invalid_request", link: `https://docs.meilisearch.com/errors#${code}` });
    const enqueue = (run) => {
      const uid = nextTask++;
      tasks.set(uid, { status: "enqueued", error: null, run });
      return json(202, { taskUid: uid, status: "enqueued", type: "documentAdditionOrUpdate" });
    };
    const bytes = Buffer.byteLength(raw ?? "", "utf8");
    // A large document addition is kept in the request log by its size only (GET /requests stays small).
    if (bytes > RECORDED_BODY_BYTES && Array.isArray(body)) {
      record.body = { documents: body.length, bytes };
      record.raw = "";
    }
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
    // Meilisearch reads at most its payload limit (100 MB by default) of a request.
    if (bytes > MAX_PAYLOAD_BYTES)
      return error(413, "payload_too_large", "The provided payload reached the size limit. The maximum accepted payload size is 100 MB.");
    if (taskRoute) {
      const t = tasks.get(Number(taskRoute[1]));
      if (!t) return error(404, "task_not_found", "no task");
      if (t.status === "enqueued") t.status = "processing";
      else if (t.status === "processing") {
        const failure = t.run();
        t.status = failure ? "failed" : "succeeded";
        t.error = failure ?? null;
      }
      return json(200, { uid: Number(taskRoute[1]), status: t.status, error: t.error });
    }
    if (uid === "down") return error(500, "internal", "the index is having a bad day");
    if (uid === "hang") return hang(res);
    try {
      const ix = indexes.get(uid);
      if (!route[1] && req.method === "POST") {
        validateIndexUid(body?.uid);
        return enqueue(() => {
          if (indexes.has(uid)) return { message: `Index \`${uid}\` already exists.`, code: "index_already_exists" };
          indexes.set(uid, { primaryKey: body.primaryKey, settings: { filterableAttributes: [], embedders: {} }, documents: new Map() });
        });
      }
      if (!ix) return error(404, "index_not_found", `Index \`${uid}\` not found.`);
      if (!op && req.method === "GET") return json(200, { uid, primaryKey: ix.primaryKey });
      if (op === "/settings" && req.method === "PATCH") {
        validateSettings(body ?? {});
        return enqueue(() => {
          // Documents already there must fit a changed embedder.
          for (const [name, e] of Object.entries(body.embedders ?? {}))
            for (const d of ix.documents.values()) {
              const v = d._vectors?.[name]?.embeddings;
              if (v && v.length !== e.dimensions)
                return {
                  message: `Index \`${uid}\`: Invalid vector dimensions: expected: \`${e.dimensions}\`, found: \`${v.length}\`.`,
                  code: "invalid_vector_dimensions",
                };
            }
          Object.assign(ix.settings, body);
        });
      }
      if (op === "/documents" && req.method === "POST") {
        if (!Array.isArray(body) || !body.every((d) => d && typeof d === "object" && !Array.isArray(d)))
          refuse(400, "malformed_payload", "The `json` payload provided is malformed: expected an array of objects.");
        return enqueue(() => {
          const failure = documentsFailure(body, ix, uid);
          if (failure) return failure;
          for (const d of body) ix.documents.set(String(d[ix.primaryKey]), d);
        });
      }
      if (op === "/documents/delete-batch" && req.method === "POST") {
        if (!Array.isArray(body)) refuse(400, "bad_request", "Invalid value type: expected an array of document ids.");
        return enqueue(() => {
          for (const id of body) ix.documents.delete(String(id));
        });
      }
      if (op === "/search" && req.method === "POST") {
        validateSearch(body ?? {}, ix);
        return json(200, search(body ?? {}, ix));
      }
      return error(404, "not_found", `no route ${req.method} ${url.pathname}`);
    } catch (e) {
      if (e instanceof MeiliError) return error(e.status, e.code, e.message);
      throw e;
    }
  });
}
