// Replicate stand-in: POST /v1/predictions {version, input} or /v1/models/<owner>/<name>/predictions
// {input} creates a prediction ("starting"); each GET /v1/predictions/<id> moves it on
// (processing → succeeded). Output: for a model whose version or name mentions "sdxl", one image
// URL per prediction (an image model); otherwise the tokens of "echo: <prompt>" (a language model).
// [fail] in the prompt → the prediction fails with an error; no bearer token → 401.
// Strict, as Replicate documents (replicate.com/docs/topics/predictions/create-a-prediction and
// /docs/reference/http): errors are {title, detail, status} (a 422 adds invalid_fields); `Prefer: wait`
// holds the create request open up to 60 s, `wait=N` N seconds (1–60), then answers the unfinished
// prediction. Scaled: a prompt saying [slow] is held WAIT_MS_PER_SECOND ms per second of wait (a bare
// `wait` = 60 s), so a client whose deadline is shorter than the wait it asked for times out.
import { serveStandin, tokensOf } from "./base.mjs";

const WAIT_MS_PER_SECOND = 50;

/** Seconds the create request is held (Prefer: wait / wait=N, at most 60), or 0 without the header. */
function waitOf(prefer) {
  const m = /(?:^|[\s,;])wait(?:=(\d+))?(?:$|[\s,;])/.exec(prefer ?? "");
  if (!m) return 0;
  return m[1] === undefined ? 60 : Math.min(60, Number(m[1]));
}

/** Replicate's 422 for an input without a prompt (the stand-in's models all take one). */
function validateInput(body) {
  if (body?.input && typeof body.input === "object" && typeof body.input.prompt === "string") return undefined;
  const field = body?.input && typeof body.input === "object" ? "input.prompt" : "input";
  return {
    title: "Input validation failed",
    detail: `- ${field}: ${field} is required\n`,
    status: 422,
    invalid_fields: [{ type: "required", field, description: `${field} is required` }],
  };
}

export function startReplicateStandin() {
  const predictions = new Map();
  let next = 0;
  return serveStandin(async ({ req, url, body, json }) => {
    if (!/^Bearer \S+/.test(req.headers.authorization ?? ""))
      return json(401, { title: "Unauthenticated", detail: "You did not pass a valid authentication token", status: 401 });
    const create =
      req.method === "POST" && (url.pathname === "/v1/predictions" || /^\/v1\/models\/[^/]+\/[^/]+\/predictions$/.test(url.pathname));
    if (create) {
      const invalid = validateInput(body);
      if (invalid) return json(422, invalid);
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
      const wait = waitOf(req.headers.prefer);
      if (wait && p.input.prompt.includes("[slow]")) await new Promise((r) => setTimeout(r, wait * WAIT_MS_PER_SECOND));
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
    json(404, { title: "Not found", detail: "Not found", status: 404 });
  });
}

const view = ({ polls: _polls, image: _image, ...p }) => p;
