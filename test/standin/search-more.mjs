// Stand-ins for more search services (hooked into services.mjs, so /requests records them too):
//   POST /searxng/search?q&format=json            SearXNG      → {results:[{title,url,content}], answers:[]…}
//   POST /exa/search {query, contents,…} x-api-key  Exa          → {results:[{title,url,text}]}
//   GET  /wolfram/api/v1/llm-api?appid&input      Wolfram|Alpha LLM API → text
//   GET  /searchapi/api/v1/search?engine&api_key&q SearchApi.io → {organic_results:[{snippet}]}
// What these services refuse is refused first (search-rules.mjs, asked by services.mjs).
// A query containing [fail] → 500 with a JSON error; [echo-key] → 401 whose message repeats the key.
// Answers true when the path was one of these services.

const json = (res, status, body) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

const SERVICES = new Set(["searxng", "exa", "wolfram", "searchapi"]);

export function searchMore(service, req, url, body, res) {
  if (!SERVICES.has(service)) return false;
  const q = url.searchParams.get("q") ?? url.searchParams.get("input") ?? body?.query ?? "";
  const key = url.searchParams.get("api_key") ?? url.searchParams.get("appid") ?? req.headers["x-api-key"] ?? "";
  if (q.includes("[fail]")) {
    json(res, 500, { error: `${service} is having a bad day` });
    return true;
  }
  if (q.includes("[echo-key]")) {
    json(res, 401, { error: `Invalid API key ${key}` });
    return true;
  }
  switch (service) {
    case "searxng":
      json(res, 200, {
        query: q,
        results: [
          { title: `SearXNG on ${q}`, url: "https://example.com/s1", content: `searxng content for ${q}` },
          { title: "second", url: "https://example.com/s2", content: "more" },
        ],
        answers: [],
        infoboxes: [],
        suggestions: [],
      });
      break;
    case "exa":
      json(res, 200, {
        requestId: "r1",
        results: [{ id: "e1", title: `Exa on ${q}`, url: "https://example.com/e", text: `exa text for ${q}` }],
      });
      break;
    case "wolfram":
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(`Query:\n"${q}"\n\nResult:\nwolfram result for ${q}`);
      break;
    case "searchapi":
      json(res, 200, {
        organic_results: [
          { title: "t1", snippet: `searchapi snippet for ${q}` },
          { title: "t2", snippet: "second snippet" },
        ],
      });
      break;
  }
  return true;
}
