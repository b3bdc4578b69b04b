import { DeletedResponse, IdParam, PageQuery, listOf } from "../schemas/common";
import { Variable, VariableCreate, VariableUpdate } from "../schemas/variables";
import * as service from "../services/variables";
import { VALIDATION_422, createRouter, jsonBody, jsonResponse, protectedRoute } from "./router";
import { can } from "../auth/guard";

const tags = ["variables"];
export const variableRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "post",
      path: "/",
      permission: can("variables:create"),
      tags,
      summary: "Create a variable",
      middleware: [VALIDATION_422],
      request: { body: jsonBody(VariableCreate) },
      responses: jsonResponse(Variable),
    }),
    async (c) => c.json(await service.createVariable(c.var.services, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/",
      permission: can("variables:view"),
      tags,
      summary: "List variables",
      request: { query: PageQuery },
      responses: jsonResponse(listOf(Variable)),
    }),
    async (c) => c.json(await service.listVariables(c.var.services, c.req.valid("query")), 200),
  )
  .openapi(
    protectedRoute({
      method: "put",
      path: "/{id}",
      permission: can("variables:create", "variables:update"),
      tags,
      summary: "Update a variable (partial)",
      request: { params: IdParam, body: jsonBody(VariableUpdate) },
      responses: jsonResponse(Variable),
    }),
    async (c) => c.json(await service.updateVariable(c.var.services, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "delete",
      path: "/{id}",
      permission: can("variables:delete"),
      tags,
      summary: "Delete a variable",
      request: { params: IdParam },
      responses: jsonResponse(DeletedResponse),
    }),
    async (c) => c.json(await service.deleteVariable(c.var.services, c.req.valid("param").id), 200),
  );
