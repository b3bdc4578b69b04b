import type { z } from "@hono/zod-openapi";
import { conflict } from "../errors";
import { isUniqueViolation } from "../db/errors";
import { variable } from "../db/schema";
import type { VariableCreate, VariableUpdate } from "../schemas/variables";
import type { PageQueryInput } from "../schemas/common";
import { type Resource, deleteRecord, insertRecord, listRecords, updateRecord } from "./crud";
import type { Deps } from "./deps";

const variables: Resource<typeof variable> = { table: variable, label: "Variable", sqlName: "variable" };

/** `{{$vars.name}}` must resolve to one value, so names are unique. */
async function uniqueName<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err, "variable.name")) throw conflict(`Variable ${name} already exists`);
    throw err;
  }
}

export const createVariable = ({ db }: Deps<"db">, input: z.infer<typeof VariableCreate>) =>
  uniqueName(input.name, () => insertRecord(db, variables, input));
export const updateVariable = ({ db }: Deps<"db">, id: string, patch: z.infer<typeof VariableUpdate>) =>
  uniqueName(patch.name, () => updateRecord(db, variables, id, patch));
export const listVariables = ({ db }: Deps<"db">, page: PageQueryInput) => listRecords(db, variables, page);
export const deleteVariable = ({ db }: Deps<"db">, id: string) => deleteRecord(db, variables, id);
