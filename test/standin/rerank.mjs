// Rerank APIs for the main stand-in (server.mjs hooks it): POST …/v1/rerank, answered in the shape
// of the service the path names — …/voyage/v1/rerank Voyage's ({data: [{index, relevance_score}]},
// `top_k`), …/jina/v1/rerank Jina's ({results: [{index, document: {text}, relevance_score}]},
// `top_n`), any other …/v1/rerank Cohere's ({results: [{index, relevance_score}]}, `top_n`).
// Deterministic scores: the share of the query's words (lower-cased, 3+ letters) the document holds,
// ties in the documents' order; best first, cut to top_n / top_k. [fail-rerank] in the query → 500
// with the service's error body ({message}, Jina and Voyage {detail}); no documents → 400.
// Recorded as the other routes (GET /requests).
const answer = (res, status, value) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
  return true;
};

const wordsOf = (text) =>
  new Set(
    String(text)
      .toLowerCase()
      .match(/[a-z]{3,}/g) ?? [],
  );

/** The share of the query's words found in the document (0 to 1), rounded to 4 places. */
export function overlapScore(query, document) {
  const q = wordsOf(query);
  if (!q.size) return 0;
  const d = wordsOf(document);
  let shared = 0;
  for (const w of q) if (d.has(w)) shared++;
  return Math.round((shared / q.size) * 10000) / 10000;
}

/** Answers a rerank request (true), or leaves the request to the next route (false). */
export function rerank({ req, res, url, raw, record }) {
  if (req.method !== "POST" || !/\/v1\/rerank$/.test(url.pathname)) return false;
  const service = url.pathname.startsWith("/voyage/") ? "voyage" : url.pathname.startsWith("/jina/") ? "jina" : "cohere";
  const body = record(req, res, url, raw);
  if (!body) return true;
  const error = (status, message) => answer(res, status, service === "cohere" ? { message } : { detail: message });
  const query = String(body.query ?? "");
  if (query.includes("[fail-rerank]")) return error(500, `stand-in ${service} rerank failure`);
  const docs = Array.isArray(body.documents) ? body.documents.map((d) => (typeof d === "string" ? d : String(d?.text ?? ""))) : [];
  if (!docs.length) return error(400, "invalid request: documents must not be empty");
  const ranked = docs
    .map((text, index) => ({ index, relevance_score: overlapScore(query, text) }))
    .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  const limit = Number(service === "voyage" ? body.top_k : body.top_n);
  const top = Number.isInteger(limit) && limit > 0 ? ranked.slice(0, limit) : ranked;
  if (service === "voyage") return answer(res, 200, { object: "list", data: top, model: body.model, usage: { total_tokens: docs.length } });
  if (service === "jina")
    return answer(res, 200, {
      model: body.model,
      usage: { total_tokens: docs.length },
      results: top.map((r) => ({ ...r, document: { text: docs[r.index] } })),
    });
  return answer(res, 200, { id: "standin", results: top, meta: { api_version: { version: "1" }, billed_units: { search_units: 1 } } });
}
