import { z } from "@hono/zod-openapi";

// Flowise 3.1.4's rules and messages (dist/services/mcp-server): the first failing rule is the 400's message.
const toolName = z
  .string({ message: "toolName is required" })
  .min(1, "toolName is required")
  .max(64, "toolName must be 64 characters or less")
  .regex(/^[a-zA-Z0-9_-]+$/, "toolName must contain only alphanumeric characters, underscores, and hyphens");

const MAX_DESCRIPTION = 10_000;

export const McpServerCreate = z
  .object({
    toolName,
    description: z
      .string({ message: "description is required" })
      .min(1, "description is required")
      .max(MAX_DESCRIPTION, `description must be ${MAX_DESCRIPTION} characters or less`),
  })
  .openapi("McpServerCreate");

export const McpServerUpdate = z
  .object({
    toolName: toolName.optional(),
    description: z
      .string()
      .min(1, "description cannot be empty")
      .max(MAX_DESCRIPTION, `description must be ${MAX_DESCRIPTION} characters or less`)
      .optional(),
    enabled: z.boolean({ message: "enabled must be a boolean" }).optional(),
  })
  .openapi("McpServerUpdate");

export const McpServerConfig = z
  .object({
    enabled: z.boolean(),
    token: z.string().openapi({
      description:
        "The bearer token of POST /mcp/{chatflowId}: in full from POST and refresh only; masked (abcd…wxyz) by GET " +
        'and PUT; "" when never enabled',
    }),
    toolName: z.string(),
    description: z.string(),
  })
  .openapi("McpServerConfig");

export type McpServerCreateInput = z.infer<typeof McpServerCreate>;
export type McpServerUpdateInput = z.infer<typeof McpServerUpdate>;
