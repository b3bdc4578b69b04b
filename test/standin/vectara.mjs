// Vectara stand-in (REST API v1, as LangChain's VectaraStore and Flowise's Vectara QA chain call it)
// that really keeps documents per customer and corpus:
//   POST /v1/index {customer_id, corpus_id, document: {document_id, title, metadata_json, section: [{text}]}}
//        → {status: {code: "OK" | "ALREADY_EXISTS"}}
//   POST /v1/delete-doc {customer_id, corpus_id, document_id} → {}
//   POST /v1/query {query: [{query, numResults, contextConfig, rerankingConfig?, corpusKey: [{customerId, corpusId,
//        metadataFilter, lexicalInterpolationConfig}], summary?: [{summarizerPromptName, responseLang, maxSummarizedResults}]}]}
//        → {responseSet: [{response: [{text, score, metadata, documentIndex}], document: [{id, metadata}], summary}]}
//   POST /v1/upload?c=CUSTOMER&o=CORPUS&d=true multipart (file, doc-metadata) → {document: {documentId}}; 409 when there
// Auth: x-api-key starting "vectara-key-" (else 401); JSON calls also need a customer-id header equal to the body's.
// Scores: shared words of the query and the text over the query's words. metadataFilter: `doc.FIELD = 'value'`
// conditions joined by `and` (anything else a 400). Summaries cite the results used in reverse order ("[n] … [1] … [n]");
// summarizer "no-such-summarizer" answers NOT_FOUND. Corpus "down" answers 500, "hang" never answers.
// GET /dump/CUSTOMER/CORPUS → {documents}; GET /requests?contains=MARKER lists what was received.
import { createServer } from "node:http";
import { hang } from "./base.mjs";

const corpora = new Map(); // "customer/corpus" → Map(id → {id, title, metadata, text})
const corpus = (c, o) => {
  const key = `${c}/${o}`;
  if (!corpora.has(key)) corpora.set(key, new Map());
  return corpora.get(key);
};
const words = (t) =>
  new Set(
    String(t)
      .toLowerCase()
      .match(/[a-z0-9]+/g) ?? [],
  );
const asValue = (v) => (typeof v === "string" ? v : JSON.stringify(v));

function compile(filter) {
  if (!filter) return () => true;
  const conds = filter.split(/\s+and\s+/i).map((c) => {
    const m = /^\s*doc\.([\w.]+)\s*=\s*'([^']*)'\s*$/.exec(c);
    if (!m) throw new Error(`invalid metadata filter: ${c.trim()}`);
    return (meta) => asValue(meta[m[1]]) === m[2];
  });
  return (meta) => conds.every((f) => f(meta));
}

/** Multipart parts of a body: [{name, filename, content}] (as latin1 text, enough for text files). */
function parts(raw, type) {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(type ?? "");
  if (!boundary) return [];
  return raw
    .toString("latin1")
    .split(`--${boundary[1] ?? boundary[2]}`)
    .slice(1, -1)
    .map((p) => {
      const [head, ...body] = p.replace(/^\r\n/, "").split("\r\n\r\n");
      return {
        name: /name="([^"]*)"/.exec(head)?.[1],
        filename: /filename="([^"]*)"/.exec(head)?.[1],
        content: body.join("\r\n\r\n").replace(/\r\n$/, ""),
      };
    });
}

function query(q) {
  const wanted = words(q.query);
  const hits = [];
  for (const key of q.corpusKey ?? []) {
    const match = compile(key.metadataFilter);
    for (const d of corpus(key.customerId, key.corpusId).values()) {
      if (!match(d.metadata)) continue;
      const have = words(d.text);
      const score = [...wanted].filter((w) => have.has(w)).length / Math.max(1, wanted.size);
      if (score > 0) hits.push({ d, score });
    }
  }
  hits.sort((a, b) => b.score - a.score);
  const top = hits.slice(0, q.numResults ?? 10);
  const document = top.map(({ d }) => ({
    id: d.id,
    metadata: Object.entries(d.metadata).map(([name, v]) => ({ name, value: asValue(v) })),
  }));
  const response = top.map(({ d, score }, i) => ({ text: d.text, score, metadata: [{ name: "lang", value: "eng" }], documentIndex: i }));
  const summary = (q.summary ?? []).map((s) => {
    if (s.summarizerPromptName === "no-such-summarizer")
      return { text: "", status: [{ code: "NOT_FOUND", statusDetail: "Failed to retrieve summarizer." }] };
    const n = Math.min(s.maxSummarizedResults ?? 5, response.length);
    const text = n ? `Most relevant [${n}]. Then [1]. Again [${n}].` : "No results.";
    return { text, lang: s.responseLang, status: [] };
  });
  return { response, document, summary, status: [] };
}

export function startVectaraStandin() {
  const requests = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://standin");
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks);
    const json = (status, value) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    if (url.pathname === "/requests") {
      const m = url.searchParams.get("contains");
      return json(
        200,
        requests.filter((r) => !m || r.raw.includes(m) || r.path.includes(m)).map(({ raw: _r, ...r }) => r),
      );
    }
    const dump = /^\/dump\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (dump) return json(200, { documents: [...corpus(decodeURIComponent(dump[1]), decodeURIComponent(dump[2])).values()] });
    const text = raw.toString("utf8");
    let body;
    if (String(req.headers["content-type"]).startsWith("application/json")) {
      try {
        body = JSON.parse(text);
      } catch {
        return json(400, { message: "body is not JSON" });
      }
    }
    requests.push({ method: req.method, path: url.pathname + url.search, headers: { ...req.headers }, body, raw: text });
    if (!String(req.headers["x-api-key"] ?? "").startsWith("vectara-key-"))
      return json(401, { code: 16, message: "Unauthorized: invalid API key" });
    const failing = (o) =>
      o === "down"
        ? (json(500, { message: "Internal error: the corpus is having a bad day" }), true)
        : o === "hang"
          ? (hang(res), true)
          : false;
    try {
      if (url.pathname === "/v1/upload" && req.method === "POST") {
        const [c, o] = [url.searchParams.get("c"), url.searchParams.get("o")];
        if (failing(o)) return;
        const file = parts(raw, req.headers["content-type"]).find((p) => p.name === "file");
        if (!file?.filename) return json(400, { message: "no file part" });
        const docs = corpus(c, o);
        if (docs.has(file.filename)) return json(409, { message: "document already exists" });
        docs.set(file.filename, { id: file.filename, title: file.filename, metadata: { uploaded: "true" }, text: file.content });
        return json(200, { response: { status: [] }, document: { documentId: file.filename } });
      }
      if (req.method !== "POST" || !body) return json(404, { message: `Not Found: ${req.method} ${url.pathname}` });
      const customer = String(req.headers["customer-id"] ?? "");
      if (url.pathname === "/v1/query") {
        const q = body.query?.[0];
        if (!q?.corpusKey?.length || q.corpusKey.some((k) => k.customerId !== customer)) return json(400, { message: "bad corpus keys" });
        if (q.corpusKey.some((k) => failing(k.corpusId))) return;
        return json(200, { responseSet: [query(q)], status: [] });
      }
      if (body.customer_id !== customer) return json(400, { message: "customer_id does not match the customer-id header" });
      if (failing(body.corpus_id)) return;
      const docs = corpus(body.customer_id, body.corpus_id);
      if (url.pathname === "/v1/index") {
        const d = body.document;
        if (docs.has(d.document_id)) return json(200, { status: { code: "ALREADY_EXISTS", statusDetail: "exists" } });
        docs.set(d.document_id, {
          id: d.document_id,
          title: d.title,
          metadata: JSON.parse(d.metadata_json || "{}"),
          text: d.section.map((s) => s.text).join("\n"),
        });
        return json(200, { status: { code: "OK", statusDetail: "" } });
      }
      if (url.pathname === "/v1/delete-doc") {
        docs.delete(body.document_id);
        return json(200, {});
      }
      return json(404, { message: `Not Found: ${url.pathname}` });
    } catch (err) {
      return json(400, { message: String(err.message ?? err) });
    }
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        close: () => new Promise((r) => (server.closeAllConnections?.(), server.close(() => r()))),
      });
    });
  });
}
