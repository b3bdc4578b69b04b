import { z } from "@hono/zod-openapi";
import { VARIABLE_TYPES } from "../db/enums";
import { text, uuid } from "./common";

const varName = () => text(255).pipe(z.string().trim().min(1, "must not be empty"));
const fields = {
  value: text(100_000).nullish(),
  type: z
    .enum(VARIABLE_TYPES)
    .optional()
    .openapi({ description: "static: the stored value; runtime: read from the worker's environment variable of that name" }),
};

export const VariableCreate = z.object({ id: uuid().optional(), name: varName(), ...fields }).openapi("VariableCreate");
export const VariableUpdate = z.object({ name: varName().optional(), ...fields }).openapi("VariableUpdate");

export const Variable = z
  .object({
    id: z.string(),
    name: z.string(),
    value: z.string().nullable(),
    type: z.enum(VARIABLE_TYPES),
    createdDate: z.string(),
    updatedDate: z.string(),
  })
  .openapi("Variable");
