import { DeletedResponse, IdParam, listOf } from "../schemas/common";
import { Assistant, AssistantCreate, AssistantListQuery, AssistantUpdate } from "../schemas/assistants";
import * as service from "../services/assistants";
import { VALIDATION_422, createRouter, jsonBody, jsonResponse, protectedRoute } from "./router";
import { can } from "../auth/guard";

const tags = ["assistants"];
export const assistantRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "post",
      path: "/",
      permission: can("assistants:create"),
      tags,
      summary: "Create an assistant",
      middleware: [VALIDATION_422],
      request: { body: jsonBody(AssistantCreate) },
      responses: jsonResponse(Assistant),
    }),
    async (c) => c.json(await service.createAssistant(c.var.services, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/",
      permission: can("assistants:view"),
      tags,
      summary: "List assistants",
      request: { query: AssistantListQuery },
      responses: jsonResponse(listOf(Assistant)),
    }),
    async (c) => {
      const { type, ...page } = c.req.valid("query");
      return c.json(await service.listAssistants(c.var.services, page, type), 200);
    },
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/{id}",
      permission: can("assistants:view"),
      tags,
      summary: "Get an assistant",
      request: { params: IdParam },
      responses: jsonResponse(Assistant),
    }),
    async (c) => c.json(await service.getAssistant(c.var.services, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "put",
      path: "/{id}",
      permission: can("assistants:create", "assistants:update"),
      tags,
      summary: "Update an assistant (partial)",
      request: { params: IdParam, body: jsonBody(AssistantUpdate) },
      responses: jsonResponse(Assistant),
    }),
    async (c) => c.json(await service.updateAssistant(c.var.services, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "delete",
      path: "/{id}",
      permission: can("assistants:delete"),
      tags,
      summary: "Delete an assistant",
      request: { params: IdParam },
      responses: jsonResponse(DeletedResponse),
    }),
    async (c) => c.json(await service.deleteAssistant(c.var.services, c.req.valid("param").id), 200),
  );
