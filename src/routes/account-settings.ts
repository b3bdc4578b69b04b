// The studio's Account Settings page: read an account, and change one's own name, email and
// password (Flowise's GET /user?id= and PUT /user, as its open-source UI calls them).
import { z } from "@hono/zod-openapi";
import { AUTHENTICATED, can } from "../auth/guard";
import { assertOwnAccount } from "../auth/session";
import { notFound } from "../errors";
import { clientIpOf } from "../rate-limit/check";
import { FlowiseUser, ProfileUpdate, PublicAccount, UserQuery } from "../schemas/accounts";
import { findAccount } from "../services/accounts/accounts";
import { updateOwnAccount } from "../services/accounts/profile";
import { flowiseUser } from "../services/accounts/user";
import { createRouter, jsonBody, jsonResponse, protectedRoute } from "./router";

const tags = ["studio"];

export const accountSettingsRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "get",
      path: "/user",
      permission: can("users:manage"),
      tags,
      summary: "An account's name and email (never its password)",
      request: { query: UserQuery },
      responses: jsonResponse(PublicAccount),
    }),
    async (c) => {
      const found = await findAccount(c.var.db, c.req.valid("query").id);
      if (!found) throw notFound(`Account ${c.req.valid("query").id} not found`);
      return c.json({ id: found.id, email: found.email, name: found.name, createdDate: found.createdDate }, 200);
    },
  )
  .openapi(
    protectedRoute({
      method: "put",
      path: "/user",
      permission: AUTHENTICATED,
      tags,
      summary: "Change one's own name, email or password (signed in; a new password needs the old one)",
      description: "Setting a password ends the account's other sessions. Anyone else's password: PUT /account/password.",
      request: { body: jsonBody(ProfileUpdate) },
      responses: jsonResponse(z.object({ user: FlowiseUser })),
    }),
    async (c) => {
      const { id, ...patch } = c.req.valid("json");
      const sessionToken = assertOwnAccount(c, id);
      const updated = await updateOwnAccount(c.env, c.var.db, id, patch, { sessionToken, clientIp: clientIpOf(c.req.raw.headers, c.env) });
      return c.json({ user: flowiseUser(updated) }, 200);
    },
  );
