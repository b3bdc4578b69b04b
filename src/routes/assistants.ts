import { DeletedResponse, IdParam, PageQuery, listOf } from "../schemas/common";
import { Assistant, AssistantCreate, AssistantUpdate } from "../schemas/assistants";
import * as service from "../services/assistants";
import { VALIDATION_422, createRouter, jsonBody, jsonResponse, protectedRoute } from "./router";

const tags = ["assistants"];
export const assistantRoutes = createRouter()
  .openapi(
    protectedRoute({ method: "post", path: "/", tags, summary: "Create an assistant", middleware: [VALIDATION_422], request: { body: jsonBody(AssistantCreate) }, responses: jsonResponse(Assistant) }),
    async (c) => c.json(await service.createAssistant(c.var.db, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({ method: "get", path: "/", tags, summary: "List assistants", request: { query: PageQuery }, responses: jsonResponse(listOf(Assistant)) }),
    async (c) => c.json(await service.listAssistants(c.var.db, c.req.valid("query")), 200),
  )
  .openapi(
    protectedRoute({ method: "get", path: "/{id}", tags, summary: "Get an assistant", request: { params: IdParam }, responses: jsonResponse(Assistant) }),
    async (c) => c.json(await service.getAssistant(c.var.db, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({ method: "put", path: "/{id}", tags, summary: "Update an assistant (partial)", request: { params: IdParam, body: jsonBody(AssistantUpdate) }, responses: jsonResponse(Assistant) }),
    async (c) => c.json(await service.updateAssistant(c.var.db, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({ method: "delete", path: "/{id}", tags, summary: "Delete an assistant", request: { params: IdParam }, responses: jsonResponse(DeletedResponse) }),
    async (c) => c.json(await service.deleteAssistant(c.var.db, c.req.valid("param").id), 200),
  );
