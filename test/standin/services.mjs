// Stand-ins for the web services tools call, in Node (vitest globalSetup), routed by a path prefix
// that the tests put in each service's base URL var:
//   GET  /serpapi/search?q&api_key            SerpAPI        → {organic_results:[{snippet}]}
//   POST /serper/search {q} X-API-KEY         Serper         → {organic:[{snippet}]}
//   GET  /google/customsearch/v1?key&cx&q     Google CSE     → {items:[{title,link,snippet}]}
//   GET  /brave/res/v1/web/search?q           Brave (X-Subscription-Token) → {web:{results:[…]}}
//   POST /tavily/search {query,…} Bearer      Tavily         → {results:[{title,url,content}]}
//   GET  /arxiv/api/query?search_query…       arXiv          → an Atom feed of two entries
//   GET  /web/<name>                          an HTML page (title, a paragraph naming the path, a link)
//   searxng, exa, wolfram, searchapi           more search services (search-more.mjs)
//   /brave-mcp/res/v1/…                      Brave's Search API for braveSearchMCP (brave-mcp.mjs)
//   ANY  /echo/…                              JSON of the method, path, headers and body received
// The search services first refuse what they document refusing (search-rules.mjs: keys, required
// parameters, ranges such as Tavily's max_results ≤ 20, in each service's error shape).
// A query containing [fail] → 500 with a JSON error; [echo-key] → 401 whose message repeats the key
// it was sent (a careless service), so tests can check that keys never reach the model.
// GET /requests?service=NAME&contains=TEXT lists what was received (oldest first).
import { createServer } from "node:http";
import { searchMore } from "./search-more.mjs";
import { braveMcp } from "./brave-mcp.mjs";
import { searchRefusal, sendRefusal } from "./search-rules.mjs";

const json = (res, status, body) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

function keyOf(req, url) {
  return (
    url.searchParams.get("api_key") ??
    url.searchParams.get("key") ??
    req.headers["x-api-key"] ??
    req.headers["x-subscription-token"] ??
    (req.headers.authorization ?? "").replace(/^Bearer /, "")
  );
}

function atom(query) {
  const entry = (n) => `<entry>
    <id>http://arxiv.org/abs/2401.0000${n}v1</id>
    <published>2024-01-0${n}T00:00:00Z</published>
    <title>Paper ${n} about ${query}</title>
    <summary>  Summary ${n}: we study ${query} &amp; more.
    </summary>
    <author><name>Author ${n}</name></author>
    <link href="http://arxiv.org/pdf/2401.0000${n}v1" rel="related" type="application/pdf"/>
  </entry>`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n<title>arXiv Query</title>\n${entry(1)}\n${entry(2)}\n</feed>`;
}

function answer(service, req, url, body, res) {
  const q = url.searchParams.get("q") ?? url.searchParams.get("search_query") ?? body?.q ?? body?.query ?? "";
  const key = keyOf(req, url);
  const refused = searchRefusal(service, req, url, body);
  if (refused) return sendRefusal(res, refused);
  if (q.includes("[fail]")) return json(res, 500, { error: `${service} is having a bad day` });
  if (q.includes("[echo-key]")) return json(res, 401, { error: `Invalid API key ${key}` });
  switch (service) {
    case "serpapi":
      return json(res, 200, { organic_results: [{ title: "t", snippet: `serp snippet for ${q}` }] });
    case "serper":
      return json(res, 200, { organic: [{ title: "t", snippet: `serper snippet for ${q}` }] });
    case "google":
      return json(res, 200, {
        items: [{ title: `Google on ${q}`, link: "https://example.com/g", snippet: `google snippet for ${q}`, extra: 1 }],
      });
    case "brave":
      return json(res, 200, {
        web: { results: [{ title: `Brave on ${q}`, url: "https://example.com/b", description: `brave snippet for ${q}` }] },
      });
    case "tavily":
      return json(res, 200, {
        query: q,
        results: [{ title: `Tavily on ${q}`, url: "https://example.com/t", content: `tavily content for ${q}`, score: 0.9 }],
      });
    case "arxiv":
      res.writeHead(200, { "content-type": "application/atom+xml" });
      return res.end(atom(q.replace(/^all:/, "")));
    case "web": {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return res.end(
        `<html><head><title>Page ${url.pathname}</title><script>var x = 1;</script></head><body><nav>menu</nav><p>Hello from ${url.pathname} &amp; &#8220;friends&#8221;</p><a href="/web/next">next</a></body></html>`,
      );
    }
    case "echo":
      return json(res, 200, { method: req.method, path: url.pathname + url.search, headers: req.headers, body: body ?? null });
    case "spec": {
      // A document served at a link (an OpenAPI spec): its text is the `b64` query parameter.
      res.writeHead(200, { "content-type": "application/yaml" });
      return res.end(Buffer.from(url.searchParams.get("b64") ?? "", "base64").toString("utf8"));
    }
    default:
      if (braveMcp(service, req, url, res)) return;
      if (searchMore(service, req, url, body, res)) return;
      return json(res, 404, { error: `no stand-in for ${url.pathname}` });
  }
}

export async function startServices() {
  const requests = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url, "http://x");
      if (url.pathname === "/requests") {
        if (req.method === "DELETE") requests.length = 0;
        const service = url.searchParams.get("service");
        const contains = url.searchParams.get("contains") ?? "";
        return json(
          res,
          200,
          requests.filter((r) => (!service || r.service === service) && JSON.stringify(r).includes(contains)),
        );
      }
      const raw = Buffer.concat(chunks).toString("utf8");
      let body;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      const service = url.pathname.split("/")[1];
      requests.push({
        service,
        method: req.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body: body ?? null,
      });
      answer(service, req, url, body, res);
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((r) => server.close(r)) };
}
