import type { z } from "@hono/zod-openapi";
import { invalid } from "../errors";
import { toolDefinitionProblem } from "../engine";
import { tool } from "../db/schema";
import type { ToolCreate, ToolUpdate } from "../schemas/tools";
import type { PageQueryInput } from "../schemas/common";
import { type Resource, deleteRecord, findRecord, insertRecord, listRecords, updateRecord } from "./crud";
import type { Deps } from "./deps";

const tools: Resource<typeof tool> = { table: tool, label: "Tool", sqlName: "tool" };

/** A schema that is not a list of arguments, or a func that does not parse, is refused (400) before it is stored. */
async function assertUsable(input: { name?: string; schema?: string | null; func?: string | null }): Promise<void> {
  const problem = await toolDefinitionProblem(input.schema, input.func);
  if (problem) throw invalid(`Tool${input.name ? ` ${input.name}` : ""}: ${problem}`);
}

export const createTool = async ({ db }: Deps<"db">, input: z.infer<typeof ToolCreate>) => {
  await assertUsable(input);
  return insertRecord(db, tools, input);
};
export const listTools = ({ db }: Deps<"db">, page: PageQueryInput) => listRecords(db, tools, page);
export const getTool = ({ db }: Deps<"db">, id: string) => findRecord(db, tools, id);
export const updateTool = async ({ db }: Deps<"db">, id: string, patch: z.infer<typeof ToolUpdate>) => {
  await assertUsable(patch);
  return updateRecord(db, tools, id, patch);
};
export const deleteTool = ({ db }: Deps<"db">, id: string) => deleteRecord(db, tools, id);
