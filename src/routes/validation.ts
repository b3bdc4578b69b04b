// The agentflow canvas's Validate button: a saved flow's problems, node by node (services/validation).
import { z } from "@hono/zod-openapi";
import { onPathRecord } from "../auth/record-guards";
import { IdParam } from "../schemas/common";
import { validateFlow } from "../services/validation";
import { createRouter, jsonResponse, protectedRoute } from "./router";

const ValidationResult = z
  .object({
    id: z.string().openapi({
      description: "The node's id (an edge's id for an edge between two missing nodes, the flow's id for the flow as a whole)",
    }),
    label: z.string(),
    name: z.string().openapi({ description: "The node's name; `edge` or `flow` for those" }),
    issues: z.array(z.string()),
  })
  .openapi("ValidationResult");

export const validationRoutes = createRouter().openapi(
  protectedRoute({
    method: "get",
    path: "/{id}",
    permission: onPathRecord("id", "view"),
    tags: ["studio"],
    summary: "What keeps a saved flow from running, per node: missing inputs and credentials, unknown nodes, loose and dangling edges",
    request: { params: IdParam },
    responses: jsonResponse(z.array(ValidationResult)),
  }),
  async (c) => c.json(await validateFlow(c.var.services, c.req.valid("param").id), 200),
);
