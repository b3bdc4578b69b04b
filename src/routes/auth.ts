import { z } from "@hono/zod-openapi";
import { AUTHENTICATED } from "../auth/guard";
import { API_KEY_PERMISSIONS } from "../schemas/permissions";
import { createRouter, jsonResponse, protectedRoute } from "./router";

const PermissionEntry = z.object({
  key: z.string(),
  value: z.string(),
  isOpenSource: z.boolean(),
  isEnterprise: z.boolean(),
  isCloud: z.boolean(),
});

/** Flowise's permission list for API keys: the names POST/PUT /apikey accept in `permissions`. */
export const authRoutes = createRouter().openapi(
  protectedRoute({
    method: "get",
    path: "/permissions/{type}",
    permission: AUTHENTICATED,
    tags: ["auth"],
    summary: "The permissions an API key can carry, by category (Flowise's list)",
    request: { params: z.object({ type: z.enum(["API_KEY"], { message: "must be API_KEY (edgeflow has no roles)" }) }) },
    responses: jsonResponse(z.record(z.string(), z.array(PermissionEntry))),
  }),
  (c) => c.json(API_KEY_PERMISSIONS, 200),
);
