import { DeletedResponse, IdParam, PageQuery, listOf } from "../schemas/common";
import { Credential, CredentialCreate, CredentialListQuery, CredentialUpdate } from "../schemas/credentials";
import * as service from "../services/credentials";
import { createRouter, jsonBody, jsonResponse, protectedRoute } from "./router";
import { can } from "../auth/guard";

const tags = ["credentials"];
export const credentialRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "post",
      path: "/",
      permission: can("credentials:create"),
      tags,
      summary: "Store a credential (values encrypted, never returned)",
      request: { body: jsonBody(CredentialCreate) },
      responses: jsonResponse(Credential),
    }),
    async (c) => c.json(await service.createCredential(c.var.services, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/",
      permission: can("credentials:view"),
      tags,
      summary: "List credentials",
      request: { query: PageQuery.extend(CredentialListQuery.shape) },
      responses: jsonResponse(listOf(Credential)),
    }),
    async (c) => {
      const { credentialName, ...page } = c.req.valid("query");
      return c.json(await service.listCredentials(c.var.services, page, credentialName), 200);
    },
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/{id}",
      permission: can("credentials:view", "credentials:create", "credentials:update"),
      tags,
      summary: "Get a credential (without its values)",
      request: { params: IdParam },
      responses: jsonResponse(Credential),
    }),
    async (c) => c.json(await service.getCredential(c.var.services, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "put",
      path: "/{id}",
      permission: can("credentials:create", "credentials:update"),
      tags,
      summary: "Update a credential",
      request: { params: IdParam, body: jsonBody(CredentialUpdate) },
      responses: jsonResponse(Credential),
    }),
    async (c) => c.json(await service.updateCredential(c.var.services, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "delete",
      path: "/{id}",
      permission: can("credentials:delete"),
      tags,
      summary: "Delete a credential",
      request: { params: IdParam },
      responses: jsonResponse(DeletedResponse),
    }),
    async (c) => c.json(await service.deleteCredential(c.var.services, c.req.valid("param").id), 200),
  );
