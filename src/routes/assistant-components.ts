// The custom assistant page's pickers, GET /assistants/components/{chatmodels,tools,docstores}, and
// its Generate button, POST /assistants/generate/instruction.
import { z } from "@hono/zod-openapi";
import { can } from "../auth/guard";
import { ToolDescBody } from "../schemas/document-store-wizard";
import { generateAssistantInstruction } from "../services/assistant-instruction";
import { assistantChatModels, assistantDocumentStores, assistantTools } from "../services/catalogue/assistant-components";
import { createRouter, errorResponsesFor, jsonBody, jsonResponse, protectedRoute } from "./router";

const tags = ["assistants"];
const Descriptor = z.record(z.string(), z.unknown()).openapi("NodeDescriptor");
const Store = z.object({ label: z.string(), name: z.string(), description: z.string() });

export const assistantComponentRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "get",
      path: "/chatmodels",
      permission: can("assistants:view"),
      tags,
      summary: "The chat model nodes a custom assistant may use (Flowise's descriptors)",
      responses: jsonResponse(z.array(Descriptor)),
    }),
    async (c) => c.json(await assistantChatModels(), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/tools",
      permission: can("assistants:view"),
      tags,
      summary: "The tool nodes a custom assistant may use (Flowise's descriptors)",
      responses: jsonResponse(z.array(Descriptor)),
    }),
    async (c) => c.json(await assistantTools(), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/docstores",
      permission: can("assistants:view"),
      tags,
      summary: "The document stores a custom assistant may search: the upserted ones ({label: name, name: id, description})",
      responses: jsonResponse(z.array(Store)),
    }),
    async (c) => c.json(await assistantDocumentStores(c.var.services), 200),
  );

const InstructionBody = ToolDescBody.extend({
  task: z.string().trim().min(1, "describe the assistant's task").max(10_000),
}).openapi("AssistantInstructionRequest");

export const assistantGenerateRoutes = createRouter().openapi(
  protectedRoute({
    method: "post",
    path: "/instruction",
    permission: can("assistants:create", "assistants:update"),
    tags,
    summary: "The chosen chat model writes a custom assistant's instructions for a task",
    request: { body: jsonBody(InstructionBody) },
    responses: { ...jsonResponse(z.object({ content: z.string() })), ...errorResponsesFor([502, 504]) },
  }),
  async (c) => {
    const { task, selectedChatModel } = c.req.valid("json");
    return c.json(await generateAssistantInstruction(c.var.services, task, selectedChatModel, c.req.raw.signal), 200);
  },
);
