import { z } from "@hono/zod-openapi";
import pkg from "../../package.json";
import { createRouter, publicRoute } from "./router";

const tags = ["ping"];

/** `/ping`, `/version` and the API reference page. */
export const metaRoutes = createRouter()
  .openapi(
    publicRoute({
      method: "get", path: "/ping", tags, summary: "Liveness check",
      responses: { 200: { description: "pong", content: { "text/plain": { schema: z.string() } } } },
    }),
    (c) => c.text("pong", 200),
  )
  .openapi(
    publicRoute({
      method: "get", path: "/version", tags, summary: "Server version",
      responses: { 200: { description: "Version", content: { "application/json": { schema: z.object({ version: z.string() }) } } } },
    }),
    (c) => c.json({ version: pkg.version }, 200),
  );

// Scalar's reference page, loaded from its CDN by the reader's browser: nothing to bundle.
const DOCS_HTML = `<!doctype html>
<html>
  <head>
    <title>edgeflow API reference</title>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <script id="api-reference" data-url="./openapi.json"></script>
    <script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference"></script>
  </body>
</html>`;

metaRoutes.get("/docs", (c) => c.html(DOCS_HTML));
