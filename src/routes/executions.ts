import { DeletedResponse, IdParam } from "../schemas/common";
import { Execution, ExecutionDeleteMany, ExecutionList, ExecutionListQuery, ExecutionUpdate } from "../schemas/executions";
import * as service from "../services/executions";
import { createRouter, jsonBody, jsonResponse, protectedRoute, publicRoute } from "./router";

// Permission hook: Flowise guards these with executions:view|update|delete; apply the key-permission
// middleware here once API keys carry permissions.
const tags = ["executions"];

export const executionRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "get", path: "/", tags, summary: "List agentflow executions (most recently updated first; page 1, 12 per page by default)",
      request: { query: ExecutionListQuery }, responses: jsonResponse(ExecutionList),
    }),
    async (c) => c.json(await service.listExecutions(c.var.db, c.env, c.req.valid("query")), 200),
  )
  .openapi(
    protectedRoute({ method: "get", path: "/{id}", tags, summary: "Get an execution", request: { params: IdParam }, responses: jsonResponse(Execution) }),
    async (c) => c.json(await service.getExecution(c.var.db, c.env, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "put", path: "/{id}", tags, summary: "Share or unshare an execution (isPublic is the only field that changes)",
      request: { params: IdParam, body: jsonBody(ExecutionUpdate) }, responses: jsonResponse(Execution),
    }),
    async (c) => c.json(await service.updateExecution(c.var.db, c.env, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({ method: "delete", path: "/{id}", tags, summary: "Delete an execution", request: { params: IdParam }, responses: jsonResponse(DeletedResponse) }),
    async (c) => c.json(await service.deleteExecution(c.var.db, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "delete", path: "/", tags, summary: "Delete several executions",
      request: { body: jsonBody(ExecutionDeleteMany) }, responses: jsonResponse(DeletedResponse),
    }),
    async (c) => c.json(await service.deleteExecutions(c.var.db, c.req.valid("json").executionIds), 200),
  );

export const publicExecutionRoutes = createRouter().openapi(
  publicRoute({
    method: "get", path: "/{id}", tags, summary: "A shared execution, without a token (404 unless isPublic); credential ids removed",
    request: { params: IdParam }, responses: jsonResponse(Execution),
  }),
  async (c) => c.json(await service.getPublicExecution(c.var.db, c.env, c.req.valid("param").id), 200),
);
