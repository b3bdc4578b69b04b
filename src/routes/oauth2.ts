// Flowise's /oauth2-credential endpoints, which the studio's credential dialog calls for OAuth2
// credential types (Gmail, Google Drive/Sheets/Docs/Calendar, Outlook, Teams): authorize and refresh
// need a caller allowed to edit credentials (Flowise leaves refresh open to anyone); the callback is
// the provider's redirect in the studio's pop-up, trusted only through its signed state.
import { z } from "@hono/zod-openapi";
import { IdParam } from "../schemas/common";
import { OAuth2Authorization, OAuth2CallbackQuery, OAuth2Refresh } from "../schemas/credentials";
import * as service from "../services/oauth2";
import { createRouter, jsonResponse, protectedRoute, publicRoute } from "./router";
import { can } from "../auth/guard";

const tags = ["credentials"];
const origin = (url: string) => new URL(url).origin;

export const oauth2Routes = createRouter()
  .openapi(
    protectedRoute({
      method: "post",
      path: "/authorize/{id}",
      permission: can("credentials:create", "credentials:update"),
      tags,
      summary: "Start an OAuth2 credential's authorization: the provider's URL to open",
      request: { params: IdParam },
      responses: jsonResponse(OAuth2Authorization),
    }),
    async (c) => c.json(await service.authorize(c.var.services, c.req.valid("param").id, origin(c.req.url)), 200),
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/refresh/{id}",
      permission: can("credentials:create", "credentials:update"),
      tags,
      summary: "Refresh an OAuth2 credential's access token with its refresh token",
      request: { params: IdParam },
      responses: jsonResponse(OAuth2Refresh),
    }),
    async (c) => c.json(await service.refreshCredential(c.var.services, c.req.valid("param").id), 200),
  )
  .openapi(
    publicRoute({
      method: "get",
      path: "/callback",
      tags,
      summary: "The provider's redirect: the code traded for tokens, stored in the credential (an HTML page for the pop-up)",
      request: { query: OAuth2CallbackQuery },
      responses: { 200: { description: "A page telling the studio the outcome", content: { "text/html": { schema: z.string() } } } },
    }),
    async (c) => {
      const { status, outcome } = await service.completeAuthorization(c.var.services, c.req.valid("query"), origin(c.req.url));
      const page = await service.outcomePage(outcome);
      return c.body(page.html, status as 200, page.headers);
    },
  );
