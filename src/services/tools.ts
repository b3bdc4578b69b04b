import type { z } from "@hono/zod-openapi";
import type { Db } from "../env";
import { tool } from "../db/schema";
import type { ToolCreate, ToolUpdate } from "../schemas/tools";
import type { PageQueryInput } from "../schemas/common";
import { type Resource, deleteRecord, findRecord, insertRecord, listRecords, updateRecord } from "./crud";

const tools: Resource<typeof tool> = { table: tool, label: "Tool", sqlName: "tool" };

export const createTool = (db: Db, input: z.infer<typeof ToolCreate>) => insertRecord(db, tools, input);
export const listTools = (db: Db, page: PageQueryInput) => listRecords(db, tools, page);
export const getTool = (db: Db, id: string) => findRecord(db, tools, id);
export const updateTool = (db: Db, id: string, patch: z.infer<typeof ToolUpdate>) => updateRecord(db, tools, id, patch);
export const deleteTool = (db: Db, id: string) => deleteRecord(db, tools, id);
