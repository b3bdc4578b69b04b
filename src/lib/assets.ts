// Files shipped as the worker's static assets (built into dist/assets by scripts/lib/assets.mjs):
// large data and browser code that would otherwise weigh on the bundle Cloudflare limits. They sit
// under _edgeflow/, beside the studio's files, in a path the worker owns (wrangler.toml's
// run_worker_first), so no one fetches them at a URL of their own. Read through the ASSETS
// binding, which is the same for every request of an isolate, so any layer may call this without
// threading the binding through.
import { env } from "cloudflare:workers";

const WORKER_ASSETS = "_edgeflow";
const ORIGIN = "https://assets.local";

function binding(): Fetcher {
  const assets = (env as { ASSETS?: Fetcher }).ASSETS;
  if (!assets)
    throw new Error("The ASSETS binding is missing: wrangler.toml's [assets] (directory dist/assets, binding ASSETS) must be configured");
  return assets;
}

// The studio's single-page fallback (wrangler.toml's not_found_handling) answers a missing file
// with index.html, 200 — through the binding too. That answer carries index.html's ETag, so a
// response with it is a miss (the worker's own files are never that page). Kept per isolate: the
// page changes only with a new deployment.
let indexEtag: string | null | undefined;

async function isFallback(res: Response): Promise<boolean> {
  if (indexEtag === undefined) {
    const index = await binding().fetch(new Request(`${ORIGIN}/index.html`, { method: "HEAD" }));
    indexEtag = index.ok ? index.headers.get("etag") : null;
  }
  return indexEtag !== null && res.headers.get("etag") === indexEtag;
}

/** A static asset as ASSETS answers it, whatever its status (404 when absent); `headers` go with the request (If-None-Match). */
export async function fetchAsset(path: string, headers?: HeadersInit): Promise<Response> {
  const res = await binding().fetch(new Request(`${ORIGIN}/${WORKER_ASSETS}/${path}`, { headers }));
  if (!(await isFallback(res))) return res;
  await res.body?.cancel();
  return new Response(null, { status: 404 });
}

export async function readAsset(path: string): Promise<Response> {
  const res = await fetchAsset(path);
  if (!res.ok) throw new Error(`Static asset ${path} is missing (${res.status}): build it with \`node scripts/build-assets.mjs\``);
  return res;
}
