import { z } from "@hono/zod-openapi";
import { jsonString, name, text, uuid } from "./common";

const fields = {
  description: text(100_000).nullish(),
  color: text(100).nullish(),
  iconSrc: text(10_000).nullish(),
  // JSON schema of the arguments, as Flowise stores it: a JSON string.
  schema: jsonString(200_000).nullish(),
  func: text(500_000).nullish(),
};

export const ToolCreate = z.object({ id: uuid().optional(), name: name(), ...fields }).openapi("ToolCreate");
export const ToolUpdate = z.object({ name: name().optional(), ...fields }).openapi("ToolUpdate");

export const Tool = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    color: z.string().nullable(),
    iconSrc: z.string().nullable(),
    schema: z.string().nullable(),
    func: z.string().nullable(),
    createdDate: z.string(),
    updatedDate: z.string(),
  })
  .openapi("Tool");
