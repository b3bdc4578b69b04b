// The agentflow canvas's Generate button (services/agentflow-generator).
import { z } from "@hono/zod-openapi";
import { can } from "../auth/guard";
import { text } from "../schemas/common";
import { generateAgentflow } from "../services/agentflow-generator";
import { createRouter, errorResponsesFor, jsonResponse, protectedRoute } from "./router";

const GenerateRequest = z
  .object({
    question: text(20_000).pipe(z.string().trim().min(1, "must not be empty")).openapi({ description: "What the flow should do" }),
    selectedChatModel: z
      .object({
        name: text(100).openapi({ description: "A chat model node's name, e.g. chatOpenAI" }),
        inputs: z.record(z.string(), z.unknown()).optional().openapi({ description: "Its inputs (modelName, temperature, …)" }),
        credential: text(100).nullish().openapi({ description: "The id of its credential (or inputs.FLOWISE_CREDENTIAL_ID)" }),
      })
      .passthrough()
      .openapi({ description: "The chat model that drafts the flow, as the canvas holds a chat model node's data" }),
  })
  .openapi("AgentflowGenerateRequest");

const Generated = z
  .object({
    description: z.string().optional(),
    nodes: z.array(z.record(z.string(), z.unknown())),
    edges: z.array(z.record(z.string(), z.unknown())),
  })
  .openapi("GeneratedAgentflow");

export const generatorRoutes = createRouter().openapi(
  protectedRoute({
    method: "post",
    path: "/generate",
    permission: can("agentflows:create", "agentflows:update"),
    tags: ["studio"],
    summary: "Draft an agentflow from a description with the chosen chat model (nodes and edges as the canvas loads them)",
    description:
      "The plan the model answers is checked against the node catalogue and the agentflow rules: 422 when it names what " +
      "edgeflow lacks or cannot run, 502 when the answer is no plan, 502/504 when the model fails.",
    request: { body: { required: true, content: { "application/json": { schema: GenerateRequest } } } },
    responses: { ...jsonResponse(Generated), ...errorResponsesFor([502, 504]) },
  }),
  async (c) => c.json(await generateAgentflow(c.var.services.runtime, c.req.valid("json"), c.req.raw.signal), 200),
);
