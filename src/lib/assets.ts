// Files shipped as the worker's static assets (built into dist/assets by scripts/lib/assets.mjs):
// large data and browser code that would otherwise weigh on the bundle Cloudflare limits. They sit
// under _edgeflow/, beside the studio's files, in a path the worker owns (wrangler.toml's
// run_worker_first), so no one fetches them at a URL of their own. Read through the ASSETS
// binding, which is the same for every request of an isolate, so any layer may call this without
// threading the binding through.
import { env } from "cloudflare:workers";

const WORKER_ASSETS = "_edgeflow";

export async function readAsset(path: string): Promise<Response> {
  const assets = (env as { ASSETS?: Fetcher }).ASSETS;
  if (!assets)
    throw new Error("The ASSETS binding is missing: wrangler.toml's [assets] (directory dist/assets, binding ASSETS) must be configured");
  const res = await assets.fetch(new Request(`https://assets.local/${WORKER_ASSETS}/${path}`));
  if (!res.ok) throw new Error(`Static asset ${path} is missing (${res.status}): build it with \`node scripts/build-assets.mjs\``);
  return res;
}

/** A static asset as ASSETS answers it, whatever its status (404 when absent); `headers` go with the request (If-None-Match). */
export async function fetchAsset(path: string, headers?: HeadersInit): Promise<Response> {
  const assets = (env as { ASSETS?: Fetcher }).ASSETS;
  if (!assets) throw new Error("The ASSETS binding is missing: wrangler.toml's [assets] must be configured");
  return assets.fetch(new Request(`https://assets.local/${path}`, { headers }));
}
