// Replicate stand-in: POST /v1/predictions {version, input} or /v1/models/<owner>/<name>/predictions
// {input} creates a prediction ("starting"); each GET /v1/predictions/<id> moves it on
// (processing → succeeded). Output: for a model whose version or name mentions "sdxl", one image
// URL per prediction (an image model); otherwise the tokens of "echo: <prompt>" (a language model).
// [fail] in the prompt → the prediction fails with an error; no bearer token → 401.
import { serveStandin, tokensOf } from "./base.mjs";

export function startReplicateStandin() {
  const predictions = new Map();
  let next = 0;
  return serveStandin(async ({ req, url, body, json }) => {
    if (!/^Bearer \S+/.test(req.headers.authorization ?? ""))
      return json(401, { title: "Unauthenticated", detail: "You did not pass a valid authentication token", status: 401 });
    const create =
      req.method === "POST" && (url.pathname === "/v1/predictions" || /^\/v1\/models\/[^/]+\/[^/]+\/predictions$/.test(url.pathname));
    if (create) {
      if (!body?.input || typeof body.input.prompt !== "string") return json(422, { detail: "input.prompt is required", status: 422 });
      const id = `pred${++next}`;
      const model = body.version ?? url.pathname;
      const image = /sdxl|af1a68a271597604546c09c64aabcd7782c114a63539a4a8d14d1eeda5630c33/.test(model);
      const p = {
        id,
        version: body.version,
        input: body.input,
        status: "starting",
        polls: 0,
        image,
        output: null,
        error: null,
        urls: { get: `http://unused.invalid/v1/predictions/${id}` },
      };
      predictions.set(id, p);
      return json(201, view(p));
    }
    const m = /^\/v1\/predictions\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && m && predictions.has(m[1])) {
      const p = predictions.get(m[1]);
      p.polls++;
      if (p.polls === 1) p.status = "processing";
      else if (p.input.prompt.includes("[fail]")) Object.assign(p, { status: "failed", error: "stand-in model crashed" });
      else
        Object.assign(p, {
          status: "succeeded",
          output: p.image ? [`https://replicate.delivery/standin/${p.id}.png`] : tokensOf(`echo: ${p.input.prompt}`),
        });
      return json(200, view(p));
    }
    json(404, { detail: "Not found", status: 404 });
  });
}

const view = ({ polls: _polls, image: _image, ...p }) => p;
