// The studio's marketplace: edgeflow's own templates (services/templates/builtin.ts, from the
// static assets) and the user's saved ones (services/templates/custom.ts).
import { z } from "@hono/zod-openapi";
import { can } from "../auth/guard";
import { onRecords, peekBody } from "../auth/record-guards";
import { DeletedResponse, IdParam } from "../schemas/common";
import { CustomTemplate, CustomTemplateCreate, MarketplaceTemplate } from "../schemas/marketplaces";
import { builtinTemplates } from "../services/templates/builtin";
import { deleteCustomTemplate, listCustomTemplates, saveCustomTemplate } from "../services/templates/custom";
import { createRouter, jsonResponse, protectedRoute } from "./router";

const tags = ["studio"];

/** The flow a template is made from: the caller must be able to see it (a key limited to some flows, only those). */
const bodyFlow = onRecords(async (c) => {
  const id = (await peekBody(c)).chatflowId;
  return typeof id === "string" ? [id.toLowerCase()] : [];
}, "view");

export const marketplaceRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "get",
      path: "/templates",
      permission: can("templates:marketplace"),
      tags,
      summary: "edgeflow's templates: chatflows and agentflows that run here (ETag, 304 when unchanged)",
      responses: { ...jsonResponse(z.array(MarketplaceTemplate)), 304: { description: "Not modified" } },
    }),
    async (c) => {
      const { list, etag } = await builtinTemplates(c.req.header("if-none-match"));
      const headers: Record<string, string> = { "cache-control": "no-cache", ...(etag ? { etag } : {}) };
      if (!list) return c.body(null, 304, headers);
      return c.json(list, 200, headers);
    },
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/custom",
      permission: can("templates:custom"),
      tags,
      summary: "The templates you saved, newest first",
      responses: jsonResponse(z.array(CustomTemplate)),
    }),
    async (c) => c.json(await listCustomTemplates(c.var.services), 200),
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/custom",
      permission: [can("templates:flowexport", "templates:toolexport"), bodyFlow],
      tags,
      summary: "Save a flow (chatflowId) or a tool (tool) as a template; private inputs (passwords, files) are left out",
      request: { body: { required: true, content: { "application/json": { schema: CustomTemplateCreate } } } },
      responses: jsonResponse(CustomTemplate),
    }),
    async (c) => c.json(await saveCustomTemplate(c.var.services, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "delete",
      path: "/custom/{id}",
      permission: can("templates:custom-delete"),
      tags,
      summary: "Delete a saved template",
      request: { params: IdParam },
      responses: jsonResponse(DeletedResponse),
    }),
    async (c) => c.json(await deleteCustomTemplate(c.var.services, c.req.valid("param").id), 200),
  );
