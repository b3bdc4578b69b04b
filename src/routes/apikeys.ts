import { DeletedResponse, IdParam, PageQuery, listOf } from "../schemas/common";
import { ApiKey, ApiKeyWrite } from "../schemas/apikeys";
import * as service from "../services/apikeys";
import { createRouter, jsonBody, jsonResponse, protectedRoute } from "./router";

const tags = ["apikey"];
export const apiKeyRoutes = createRouter()
  .openapi(
    protectedRoute({ method: "post", path: "/", tags, summary: "Create an API key (the full key is shown only here)", request: { body: jsonBody(ApiKeyWrite) }, responses: jsonResponse(ApiKey) }),
    async (c) => c.json(await service.createApiKey(c.var.db, c.req.valid("json").keyName), 200),
  )
  .openapi(
    protectedRoute({ method: "get", path: "/", tags, summary: "List API keys (masked)", request: { query: PageQuery }, responses: jsonResponse(listOf(ApiKey)) }),
    async (c) => c.json(await service.listApiKeys(c.var.db, c.req.valid("query")), 200),
  )
  .openapi(
    protectedRoute({ method: "get", path: "/{id}", tags, summary: "Get an API key (masked)", request: { params: IdParam }, responses: jsonResponse(ApiKey) }),
    async (c) => c.json(await service.getApiKey(c.var.db, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({ method: "put", path: "/{id}", tags, summary: "Rename an API key", request: { params: IdParam, body: jsonBody(ApiKeyWrite) }, responses: jsonResponse(ApiKey) }),
    async (c) => c.json(await service.updateApiKey(c.var.db, c.req.valid("param").id, c.req.valid("json").keyName), 200),
  )
  .openapi(
    protectedRoute({ method: "delete", path: "/{id}", tags, summary: "Revoke an API key", request: { params: IdParam }, responses: jsonResponse(DeletedResponse) }),
    async (c) => c.json(await service.deleteApiKey(c.var.db, c.req.valid("param").id), 200),
  );
