import { z } from "@hono/zod-openapi";
import pkg from "../../package.json";
import { readAsset } from "../lib/assets";
import { BEARER_SCHEME, createRouter, publicRoute } from "./router";

const tags = ["ping"];

/** `/ping`, `/version` and the API reference page. */
export const metaRoutes = createRouter()
  .openapi(
    publicRoute({
      method: "get",
      path: "/ping",
      tags,
      summary: "Liveness check",
      responses: { 200: { description: "pong", content: { "text/plain": { schema: z.string() } } } },
    }),
    (c) => c.text("pong", 200),
  )
  .openapi(
    publicRoute({
      method: "get",
      path: "/version",
      tags,
      summary: "The Flowise version edgeflow answers as (the studio compares it), and edgeflow's own",
      responses: {
        200: {
          description: "Version",
          content: { "application/json": { schema: z.object({ version: z.string(), edgeflow: z.string() }) } },
        },
      },
    }),
    (c) => c.json({ version: pkg.studio.version, edgeflow: pkg.version }, 200),
  );

// Scalar's reference page. Its script is one of the worker's static assets (scripts/lib/assets.mjs),
// served from here, and it is told not to load fonts from Scalar's servers: the page works with no
// network, in local development too. URLs are absolute because /docs and /docs/ both serve it. (No
// element may have the id "api-reference": the script would mount a second, default-configured
// reference there, fonts and all.) Bearer authentication is preselected, so "Test Request" sends
// the key the reader enters.
const docsHtml = (base: string) => `<!doctype html>
<html>
  <head>
    <title>edgeflow API reference</title>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <div id="reference"></div>
    <script src="${base}/docs/scalar.js"></script>
    <script>
      Scalar.createApiReference("#reference", {
        url: "${base}/openapi.json",
        withDefaultFonts: false,
        telemetry: false,
        hideClientButton: true,
        authentication: { preferredSecurityScheme: "${BEARER_SCHEME}" },
      });
    </script>
  </body>
</html>`;

/** The API base the page was asked under: its path without the trailing `/docs` (or `/docs/`). */
const basePath = (path: string) => path.replace(/\/docs\/?$/, "");

metaRoutes.get("/docs", (c) => c.html(docsHtml(basePath(c.req.path))));
metaRoutes.get("/docs/scalar.js", async (_c) => {
  const asset = await readAsset("api-reference/scalar.js");
  const headers = new Headers({ "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=3600" });
  const etag = asset.headers.get("etag");
  if (etag) headers.set("etag", etag);
  return new Response(asset.body, { headers });
});
