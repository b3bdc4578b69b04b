// Brave's Search API as @brave/brave-search-mcp-server calls it (braveSearchMCP), under the services
// stand-in's /brave-mcp prefix (services.mjs records each request):
//   GET /res/v1/web/search?q…           {web:{results}}; summary → {summarizer:{key}}; result_filter with
//                                        locations → {locations:{results:[{id,…}]}} (not for "[no-locations]")
//   GET /res/v1/local/descriptions?ids  {results:[{id, description}]} (one per ids value)
//   GET /res/v1/news|videos|images/search, /res/v1/summarizer/search?key
// X-Subscription-Token "brave-bad-key" → 401 with Brave's error body; q with "[leak-key]" → 422 whose
// body repeats the key; q with "[nothing]" → no results.
const send = (res, status, body) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

function web(url, q) {
  const filter = (url.searchParams.get("result_filter") ?? "").split(",");
  const out = { type: "search", query: { original: q } };
  if (q.includes("[nothing]")) return { ...out, web: { type: "search", results: [] } };
  out.web = { type: "search", results: [{ title: `Web on ${q}`, url: "https://example.com/w", description: "web desc", age: "1d" }] };
  if (filter.includes("summarizer")) out.summarizer = { type: "summarizer", key: `sum-${q}` };
  if (filter.includes("locations") && !q.includes("[no-locations]"))
    out.locations = {
      results: [
        {
          id: "loc-1",
          title: `Cafe ${q}`,
          price_range: "$$",
          contact: { telephone: "+1 555 0100" },
          rating: { ratingValue: 4.5, reviewCount: 12 },
          postal_address: { displayAddress: "1 Main St" },
          opening_hours: {
            current_day: [{ full_name: "Monday", opens: "08:00", closes: "17:00" }],
            days: [
              [
                { full_name: "Tuesday", opens: "08:00", closes: "12:00" },
                { full_name: "Tuesday", opens: "13:00", closes: "17:00" },
              ],
            ],
          },
        },
        { id: "loc-2", title: "Bakery" },
      ],
    };
  return out;
}

export function braveMcp(service, req, url, res) {
  if (service !== "brave-mcp") return false;
  const key = req.headers["x-subscription-token"];
  const q = url.searchParams.get("q") ?? "";
  if (key === "brave-bad-key")
    return (
      send(res, 401, {
        type: "ErrorResponse",
        error: { id: "e1", status: 401, code: "SUBSCRIPTION_TOKEN_INVALID", detail: "The provided subscription token is invalid." },
        time: 1,
      }),
      true
    );
  if (q.includes("[leak-key]")) return (send(res, 422, { type: "ErrorResponse", error: { detail: `bad request for token ${key}` } }), true);
  const path = url.pathname.replace(/^\/brave-mcp/, "");
  const none = q.includes("[nothing]");
  switch (path) {
    case "/res/v1/web/search":
      send(res, 200, web(url, q));
      break;
    case "/res/v1/local/descriptions":
      send(res, 200, { results: url.searchParams.getAll("ids").map((id) => ({ id, description: `About ${id}` })) });
      break;
    case "/res/v1/news/search":
      send(res, 200, {
        results: none
          ? []
          : [{ url: "https://example.com/n", title: `News on ${q}`, age: "2h", description: "d", thumbnail: { src: "https://t/n.jpg" } }],
      });
      break;
    case "/res/v1/videos/search":
      send(res, 200, {
        results: [
          {
            url: "https://example.com/v",
            title: `Video on ${q}`,
            description: "v",
            video: { duration: "01:02" },
            thumbnail: { src: "https://t/v.jpg" },
          },
        ],
      });
      break;
    case "/res/v1/images/search": {
      const good = {
        title: `Image of ${q}`,
        url: "https://example.com/i",
        page_fetched: "2024-01-01T00:00:00Z",
        confidence: "high",
        properties: { url: "https://example.com/i.jpg", width: 10, height: 20 },
        extra: 1,
      };
      send(res, 200, { results: [good, { title: "no size", url: "https://example.com/x" }], extra: { might_be_offensive: false } });
      break;
    }
    case "/res/v1/summarizer/search":
      send(res, 200, {
        type: "summarizer",
        status: "complete",
        summary: [
          { type: "token", data: `Summary for ${url.searchParams.get("key")}` },
          { type: "inline_reference", data: { url: "https://example.com/r" } },
        ],
      });
      break;
    default:
      send(res, 404, { error: `no stand-in for ${path}` });
  }
  return true;
}
