// The custom assistant page's pickers: GET /assistants/components/{chatmodels,tools,docstores}.
import { z } from "@hono/zod-openapi";
import { can } from "../auth/guard";
import { assistantChatModels, assistantDocumentStores, assistantTools } from "../services/catalogue/assistant-components";
import { createRouter, jsonResponse, protectedRoute } from "./router";

const tags = ["assistants"];
const Descriptor = z.record(z.string(), z.unknown()).openapi("NodeDescriptor");
const Store = z.object({ label: z.string(), name: z.string(), description: z.string() });

export const assistantComponentRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "get",
      path: "/chatmodels",
      permission: can("assistants:view"),
      tags,
      summary: "The chat model nodes a custom assistant may use (Flowise's descriptors)",
      responses: jsonResponse(z.array(Descriptor)),
    }),
    async (c) => c.json(await assistantChatModels(), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/tools",
      permission: can("assistants:view"),
      tags,
      summary: "The tool nodes a custom assistant may use (Flowise's descriptors)",
      responses: jsonResponse(z.array(Descriptor)),
    }),
    async (c) => c.json(await assistantTools(), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/docstores",
      permission: can("assistants:view"),
      tags,
      summary: "The document stores a custom assistant may search: the upserted ones ({label: name, name: id, description})",
      responses: jsonResponse(z.array(Store)),
    }),
    async (c) => c.json(await assistantDocumentStores(c.var.services), 200),
  );
