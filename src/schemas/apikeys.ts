import { z } from "@hono/zod-openapi";
import { name } from "./common";

export const ApiKeyWrite = z.object({ keyName: name() }).openapi("ApiKeyWrite");

export const ApiKey = z.object({
  id: z.string(),
  keyName: z.string(),
  apiKey: z.string().openapi({ description: "The full key on creation only; masked (abcd…wxyz) afterwards" }),
  createdDate: z.string(),
  updatedDate: z.string(),
}).openapi("ApiKey");
