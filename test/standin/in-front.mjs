// A stand-in in front of a private generic one (server.mjs: OpenAI's rules and scripted answers): it
// refuses what its own service refuses and passes what it accepts on, so every dialect (Mistral,
// Hugging Face's TGI, Voyage…) answers with the generic one's scripts without writing them again.
import { serveStandin } from "./base.mjs";
import { startStandin } from "./server.mjs";

/**
 * Serves `handle(ctx, forward)`; `forward(path, authorization, body)` POSTs JSON text to the private
 * generic stand-in and answers its Response. Closing closes both.
 */
export async function serveInFront(handle) {
  const generic = await startStandin();
  const forward = (path, authorization, body) =>
    fetch(`${generic.url}${path}`, { method: "POST", headers: { "content-type": "application/json", authorization }, body });
  const served = await serveStandin((ctx) => handle(ctx, forward));
  return {
    url: served.url,
    requests: served.requests,
    close: async () => {
      await served.close();
      await generic.close();
    },
  };
}

/** The generic stand-in's answer, as it came (or its text replaced), on `res`. */
export async function relay(res, answer, text) {
  res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
  res.end(text ?? (await answer.text()));
}
