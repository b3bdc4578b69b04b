// The studio canvas's node catalogue: node descriptors, icons, load methods and credential types,
// served from the static assets the build writes (services/catalogue), with ETags.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { AUTHENTICATED, can } from "../auth/guard";
import type { AppEnv } from "../env";
import { text } from "../schemas/common";
import * as catalogue from "../services/catalogue/files";
import { loadOptions } from "../services/catalogue/load-methods";
import { createRouter, jsonResponse, protectedRoute, publicRoute } from "./router";

const tags = ["studio"];
const NameParam = z.object({ name: text(200) });
const ClientQuery = z.object({
  client: z.string().max(50).optional().openapi({ description: "agentflowv2 or agentflowsdk: leaves out inputs meant for other clients" }),
});
const Descriptor = z.record(z.string(), z.unknown()).openapi("NodeDescriptor");
const LoadOption = z.object({ label: z.string(), name: z.string(), description: z.string().optional(), imageSrc: z.string().optional() });
const svg = {
  200: { description: "SVG image", content: { "image/svg+xml": { schema: z.string() } } },
  304: { description: "Not modified" },
};

/** Sends a catalogue file: 304 when the caller's ETag is current; icons cache for a day, data revalidates. */
function send(c: Context<AppEnv>, file: catalogue.CatalogueFile) {
  const headers: Record<string, string> = {
    "content-type": file.contentType,
    "cache-control": file.contentType.startsWith("image/") ? "public, max-age=86400" : "no-cache",
  };
  if (file.etag) headers.etag = file.etag;
  if (file.notModified || !file.body) return c.body(null, 304, headers);
  return c.body(file.body, 200, headers);
}

const etagOf = (c: Context<AppEnv>) => c.req.header("if-none-match");

const LOAD_PERMISSIONS = [
  ...["chatflows", "agentflows"].flatMap((k) => ["view", "create", "update", "delete"].map((a) => `${k}:${a}`)),
  "documentStores:view",
  "documentStores:create",
  "documentStores:update",
  "documentStores:add-loader",
  // The document store wizard's pages: a loader's, an embedding's or a vector store's options.
  "documentStores:preview-process",
  "documentStores:upsert-config",
];

export const catalogueRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "get",
      path: "/nodes",
      permission: AUTHENTICATED,
      tags,
      summary: "Every node the canvas offers (Flowise's descriptors; ETag, 304 when unchanged)",
      request: { query: ClientQuery },
      responses: { ...jsonResponse(z.array(Descriptor)), 304: { description: "Not modified" } },
    }),
    async (c) => send(c, await catalogue.nodeList(catalogue.asClient(c.req.valid("query").client), etagOf(c))),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/nodes/{name}",
      permission: AUTHENTICATED,
      tags,
      summary: "One node's descriptor",
      request: { params: NameParam, query: ClientQuery },
      responses: { ...jsonResponse(Descriptor), 304: { description: "Not modified" } },
    }),
    async (c) => send(c, await catalogue.nodeFile(c.req.valid("param").name, catalogue.asClient(c.req.valid("query").client), etagOf(c))),
  )
  .openapi(
    publicRoute({
      method: "get",
      path: "/node-icon/{name}",
      tags,
      summary: "A node's icon (public)",
      request: { params: NameParam },
      responses: svg,
    }),
    async (c) => send(c, await catalogue.nodeIcon(c.req.valid("param").name, etagOf(c))),
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/node-load-method/{name}",
      permission: can(...LOAD_PERMISSIONS),
      tags,
      summary: "The options of a node input with a loadMethod (body: the node's data and loadMethod)",
      request: {
        params: NameParam,
        body: {
          required: true,
          content: { "application/json": { schema: z.object({ loadMethod: z.string() }).passthrough().openapi("LoadMethodRequest") } },
        },
      },
      responses: { ...jsonResponse(z.array(LoadOption)), 501: { description: "A load method not available yet" } },
    }),
    async (c) => c.json(await loadOptions(c.var.services, c.req.valid("param").name, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/components-credentials",
      permission: AUTHENTICATED,
      tags,
      summary: "The credential types the catalogue's nodes name",
      responses: { ...jsonResponse(z.array(Descriptor)), 304: { description: "Not modified" } },
    }),
    async (c) => send(c, await catalogue.credentialList(etagOf(c))),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/components-credentials/{name}",
      permission: AUTHENTICATED,
      tags,
      summary: "One credential type",
      request: { params: NameParam },
      responses: { ...jsonResponse(Descriptor), 304: { description: "Not modified" } },
    }),
    async (c) => send(c, await catalogue.credentialFile(c.req.valid("param").name, etagOf(c))),
  )
  .openapi(
    publicRoute({
      method: "get",
      path: "/components-credentials-icon/{name}",
      tags,
      summary: "A credential type's icon (public)",
      request: { params: NameParam },
      responses: svg,
    }),
    async (c) => send(c, await catalogue.credentialIcon(c.req.valid("param").name, etagOf(c))),
  );
