import { DeletedResponse, IdParam, PageQuery, listOf } from "../schemas/common";
import { ApiKey, ApiKeyCreate, ApiKeyUpdate } from "../schemas/apikeys";
import * as service from "../services/apikeys";
import { can } from "../auth/guard";
import { grantCheck, onApiKey, visibleKeys } from "../auth/key-guards";
import { createRouter, jsonBody, jsonResponse, protectedRoute } from "./router";

const tags = ["apikey"];
export const apiKeyRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "post",
      path: "/",
      permission: can("apikeys:create"),
      tags,
      summary: "Create an API key (the full key is shown only here)",
      request: { body: jsonBody(ApiKeyCreate) },
      responses: jsonResponse(ApiKey),
    }),
    async (c) =>
      c.json(await service.createApiKey(c.var.services, c.req.valid("json"), await grantCheck(c), c.env.CREDENTIAL_ENCRYPTION_KEY), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/",
      permission: can("apikeys:view"),
      tags,
      summary: "List API keys (masked), with their permissions",
      request: { query: PageQuery },
      responses: jsonResponse(listOf(ApiKey)),
    }),
    async (c) => c.json(await service.listApiKeys(c.var.services, c.req.valid("query"), await visibleKeys(c)), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/{id}",
      permission: onApiKey("id", "apikeys:view"),
      tags,
      summary: "Get an API key (masked)",
      request: { params: IdParam },
      responses: jsonResponse(ApiKey),
    }),
    async (c) => c.json(await service.getApiKey(c.var.services, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "put",
      path: "/{id}",
      permission: onApiKey("id", "apikeys:create", "apikeys:update"),
      tags,
      summary: "Rename or re-scope an API key (partial; null resets a list to all)",
      request: { params: IdParam, body: jsonBody(ApiKeyUpdate) },
      responses: jsonResponse(ApiKey),
    }),
    async (c) => c.json(await service.updateApiKey(c.var.services, c.req.valid("param").id, c.req.valid("json"), await grantCheck(c)), 200),
  )
  .openapi(
    protectedRoute({
      method: "delete",
      path: "/{id}",
      permission: onApiKey("id", "apikeys:delete"),
      tags,
      summary: "Revoke an API key",
      request: { params: IdParam },
      responses: jsonResponse(DeletedResponse),
    }),
    async (c) => c.json(await service.deleteApiKey(c.var.services, c.req.valid("param").id), 200),
  );
