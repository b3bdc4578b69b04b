// Two loopback servers (two ports: two origins, "a" and "b") that redirect by a plan in the path,
// record every request they get (headers included), and at the end of the plan hand the request to
// one of the other stand-ins, so a provider behind redirects still speaks to a real stand-in:
//   ANY /<upstream>/<id>/<plan>/<rest>   <plan> is "-" (none left) or steps joined by ".": NNNa /
//        NNNb answer status NNN with an absolute Location on server a / b, NNNr with a relative one
//        (same server); the Location keeps <upstream>/<id>, the plan's remaining steps, <rest> and
//        the query. With no step left: <upstream> "echo" answers 200 {ok: true}; any other name is
//        a stand-in's URL from the map (openai, anthropic, …) and the request goes there as
//        /<rest>?query, method, headers (host aside) and body unchanged, its answer streamed back.
//   GET /requests?id=<id>   what either server received for that id, oldest first:
//        {server, method, path (/<rest>?query), plan, headers, body}.
// startRedirector(upstreams) answers {a, b, close}: the two servers' base URLs.
import { createServer, request } from "node:http";

export async function startRedirector(upstreams) {
  const records = [];
  const servers = {};
  const base = (name) => servers[name].url;

  const handler = (name) => async (req, res) => {
    const url = new URL(req.url ?? "/", "http://redirector");
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks);
    const json = (status, value) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    if (url.pathname === "/requests")
      return json(
        200,
        records.filter((r) => r.id === url.searchParams.get("id")),
      );
    const m = /^\/([^/]+)\/([^/]+)\/([^/]+)(\/.*)?$/.exec(url.pathname);
    if (!m) return json(404, { error: { message: `no plan in ${url.pathname}` } });
    const [, upstream, id, plan, rest = "/"] = m;
    records.push({
      server: name,
      id,
      method: req.method,
      path: rest + url.search,
      plan,
      headers: { ...req.headers },
      body: raw.toString("utf8"),
    });
    const steps = plan === "-" ? [] : plan.split(".");
    if (steps.length) {
      const step = /^(\d{3})([abr])$/.exec(steps[0]);
      if (!step) return json(400, { error: { message: `bad step ${steps[0]}` } });
      const path = `/${upstream}/${id}/${steps.slice(1).join(".") || "-"}${rest}${url.search}`;
      const location = step[2] === "r" ? path : `${base(step[2])}${path}`;
      res.writeHead(Number(step[1]), { location, "content-type": "text/plain" });
      return res.end(`redirecting to ${location}`);
    }
    if (upstream === "echo") return json(200, { ok: true });
    const target = upstreams[upstream];
    if (!target) return json(404, { error: { message: `no upstream ${upstream}` } });
    const headers = { ...req.headers };
    delete headers.host;
    const out = request(`${target}${rest}${url.search}`, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on("error", (err) => (res.headersSent ? res.destroy() : json(502, { error: { message: String(err) } })));
    res.on("close", () => out.destroy());
    out.end(raw);
  };

  for (const name of ["a", "b"]) {
    const server = createServer(handler(name));
    await new Promise((r) => server.listen(0, "127.0.0.1", r));
    servers[name] = { server, url: `http://127.0.0.1:${server.address().port}` };
  }
  return {
    a: base("a"),
    b: base("b"),
    close: async () => {
      for (const { server } of Object.values(servers)) {
        server.closeAllConnections?.();
        await new Promise((r) => server.close(r));
      }
    },
  };
}
