import { z } from "@hono/zod-openapi";
import { isPermissionName } from "./permissions";
import { name, uuid } from "./common";

const permissions = z
  .array(z.string().refine(isPermissionName, { message: "unknown permission (GET /auth/permissions/API_KEY lists them)" }))
  .max(200)
  .openapi({
    description:
      "Flowise permission names (e.g. `chatflows:view`, `apikeys:create`). Omitted or null: every permission (full " +
      "access); [] none — the key can then only run the chatflows it may run.",
    example: ["chatflows:view", "chatflows:update"],
  });

const chatflows = z
  .array(uuid())
  .max(1000)
  .openapi({ description: "Limits the key to these chatflow ids (any type). Omitted or null: every chatflow." });

export const ApiKeyCreate = z
  .object({
    keyName: name(),
    permissions: permissions.nullish(),
    chatflows: chatflows.nullish(),
  })
  .openapi("ApiKeyCreate");

export const ApiKeyUpdate = z
  .object({
    keyName: name().optional(),
    permissions: permissions.nullish(),
    chatflows: chatflows.nullish(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: "give keyName, permissions or chatflows" })
  .openapi("ApiKeyUpdate");

export const ApiKey = z
  .object({
    id: z.string(),
    keyName: z.string(),
    apiKey: z.string().openapi({ description: "The full key on creation only; masked (abcd…wxyz) afterwards" }),
    permissions: z.array(z.string()).nullable().openapi({ description: "null: every permission" }),
    chatflows: z.array(z.string()).nullable().openapi({ description: "null: every chatflow" }),
    createdDate: z.string(),
    updatedDate: z.string(),
  })
  .openapi("ApiKey");
