// The checks of each record of Flowise's export file: the create endpoints' schemas (src/schemas/)
// where a record kind has one, with Flowise's own field shapes on top — an id always, dates as ISO
// strings, flags as 1/0 too, extra fields such as workspaceId ignored — and every field that may be
// empty taking "" and null as they are given, so that the export gives back what the import took.
import { z } from "@hono/zod-openapi";
import { DOCUMENT_STORE_STATUSES, EXECUTION_STATES, MESSAGE_ROLES } from "../../db/enums";
import { AssistantCreate } from "../../schemas/assistants";
import { ChatflowCreate } from "../../schemas/chatflows";
import { jsonString, text, uuid } from "../../schemas/common";
import { DocumentStoreCreate } from "../../schemas/document-store";
import { FeedbackCreate } from "../../schemas/feedback";
import { CustomTemplateCreate } from "../../schemas/marketplaces";
import { ToolCreate } from "../../schemas/tools";
import { VariableCreate } from "../../schemas/variables";
import type { TableName } from "./tables";

/** Chat types Flowise 3.1.4 stores, and edgeflow's own. */
const CHAT_TYPES_ACCEPTED = ["INTERNAL", "EXTERNAL", "EVALUATION", "MCP", "WEBHOOK", "SCHEDULED", "OPENAI"] as const;

/**
 * A field that may be empty: "" and null kept as given, anything else checked by `schema` (its own
 * messages, which a union would replace by "Invalid input").
 */
const asGiven = <T extends z.ZodType>(schema: T) => {
  const inner = schema.nullish();
  return z
    .unknown()
    .transform((v, ctx): "" | z.output<typeof inner> => {
      if (v === "") return "";
      const parsed = inner.safeParse(v);
      if (parsed.success) return parsed.data;
      for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
      return z.NEVER;
    })
    .optional();
};

type Blankable<S extends z.ZodRawShape> = {
  [K in keyof S]: S[K] extends z.ZodType ? (null extends z.input<S[K]> ? ReturnType<typeof asGiven<S[K]>> : S[K]) : S[K];
};

/** A create schema whose nullable fields also take "" (Flowise writes "" for a field left empty). */
function blankable<S extends z.ZodRawShape>(schema: z.ZodObject<S>): z.ZodObject<Blankable<S>> {
  const shape = Object.fromEntries(
    Object.entries(schema.shape).map(([key, field]) => [
      key,
      (field as z.ZodType).safeParse(null).success ? asGiven(field as z.ZodType) : field,
    ]),
  );
  return z.object(shape) as unknown as z.ZodObject<Blankable<S>>;
}

/** A date as Flowise's JSON has it (ISO string); missing → now, unreadable → an issue. */
const date = () =>
  z
    .preprocess((v) => (v === undefined || v === null || v === "" ? new Date().toISOString() : v), z.union([z.string(), z.number()]))
    .transform((v, ctx) => {
      // Through Date: a number past its range (±8.64e15 ms) is NaN there, where toISOString would throw.
      const t = new Date(typeof v === "number" ? v : Date.parse(v)).getTime();
      if (Number.isNaN(t)) {
        ctx.addIssue({ code: "custom", message: "must be an ISO 8601 date" });
        return z.NEVER;
      }
      return new Date(t).toISOString();
    });
const optionalDate = () =>
  z.preprocess((v) => (v === "" ? null : v), z.union([z.null(), z.undefined(), date()])).transform((v) => v ?? null);
const dates = { createdDate: date(), updatedDate: date() };

const flag = () =>
  z
    .preprocess((v) => (v === 1 || v === "true" ? true : v === 0 || v === "false" ? false : v), z.boolean())
    .nullish()
    .transform((v) => (v ? 1 : 0));

const nonEmpty = (maxBytes: number) => text(maxBytes).pipe(z.string().min(1, "must not be empty"));

export const Chatflow = blankable(ChatflowCreate).extend({
  id: uuid(),
  deployed: flag(),
  isPublic: flag(),
  mcpServerConfig: asGiven(jsonString(100_000)),
  ...dates,
});

export const McpServerConfig = z.object({
  enabled: z.boolean().optional(),
  token: z.string().max(1000).optional(),
  toolName: z.string().max(64).optional(),
  description: z.string().max(10_000).optional(),
});

export const Assistant = blankable(AssistantCreate).extend({
  id: uuid(),
  // Flowise keeps details as a JSON string; an object is taken too, and kept as it is.
  details: z.union([jsonString(200_000, true), z.record(z.string(), z.unknown()).transform((d) => JSON.stringify(d))]),
  // Flowise's custom assistants carry a random UUID of their own here, not a credential of ours.
  credential: asGiven(text(1000)),
  ...dates,
});

export const Tool = blankable(ToolCreate).extend({ id: uuid(), ...dates });

export const Variable = VariableCreate.extend({
  id: uuid(),
  value: z.string().max(100_000).nullish(),
  // Flowise's column default is "string" (a static value).
  type: z.preprocess((v) => (v === undefined || v === null || v === "" || v === "string" ? "static" : v), z.enum(["static", "runtime"])),
  ...dates,
});

const LoaderFile = z.looseObject({ id: z.string().optional(), name: z.string().optional() });
export const Loader = z.object({
  id: uuid(),
  loaderId: nonEmpty(200),
  loaderName: z.string().max(1000).nullish(),
  loaderConfig: z.record(z.string(), z.unknown()).nullish(),
  splitterId: z.string().max(200).nullish(),
  splitterName: z.string().max(1000).nullish(),
  splitterConfig: z.record(z.string(), z.unknown()).nullish(),
  totalChunks: z.number().int().min(0).nullish(),
  totalChars: z.number().int().min(0).nullish(),
  status: z.enum(DOCUMENT_STORE_STATUSES).nullish(),
  error: z.string().max(10_000).nullish(),
  files: z.array(LoaderFile).max(10_000).nullish(),
});

export const DocumentStore = blankable(DocumentStoreCreate).extend({
  id: uuid(),
  loaders: asGiven(jsonString(1_500_000)),
  whereUsed: asGiven(jsonString(100_000)),
  status: z.enum(DOCUMENT_STORE_STATUSES).nullish(),
  ...dates,
});

export const Chunk = z.object({
  id: uuid(),
  docId: uuid(),
  storeId: uuid(),
  chunkNo: z.number().int().min(0),
  pageContent: text(1_000_000),
  metadata: z.preprocess(
    (v) => (v === undefined || v === null || v === "" ? "{}" : typeof v === "object" ? JSON.stringify(v) : v),
    jsonString(1_000_000),
  ),
});

export const Execution = z.object({
  id: uuid(),
  executionData: z.preprocess((v) => (v === undefined || v === null || v === "" ? "[]" : v), jsonString(1_900_000)),
  state: z.enum(EXECUTION_STATES),
  agentflowId: uuid(),
  sessionId: nonEmpty(1000),
  action: asGiven(jsonString(200_000)),
  isPublic: flag(),
  ...dates,
  stoppedDate: optionalDate(),
});

const bigJson = () => asGiven(jsonString(1_000_000));
export const Message = z.object({
  id: uuid(),
  role: z.enum(MESSAGE_ROLES),
  chatflowid: uuid(),
  content: z.string().max(1_000_000),
  sourceDocuments: bigJson(),
  usedTools: bigJson(),
  fileAnnotations: bigJson(),
  agentReasoning: bigJson(),
  fileUploads: bigJson(),
  artifacts: bigJson(),
  action: bigJson(),
  followUpPrompts: bigJson(),
  chatType: z.enum(CHAT_TYPES_ACCEPTED),
  chatId: nonEmpty(1000),
  memoryType: asGiven(text(1000)),
  sessionId: asGiven(text(1000)),
  leadEmail: asGiven(text(1000)),
  executionId: asGiven(uuid()),
  createdDate: date(),
});

export const Feedback = blankable(FeedbackCreate).extend({ id: uuid(), chatflowid: uuid(), chatId: nonEmpty(1000), createdDate: date() });

/** A string holding a JSON array, as Flowise stores usecases; anything else is given as it is (and fails). */
const parsedList = (v: unknown) => {
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
};

// Flowise exports a template as GET /marketplaces/custom answers it: usecases a list ("" for none),
// a tool template's {iconSrc, schema, func} spread over the record instead of flowData.
const templateField = CustomTemplateCreate.shape;
export const CustomTemplate = blankable(CustomTemplateCreate.pick({ name: true, description: true, badge: true })).extend({
  id: uuid(),
  flowData: z.union([jsonString(1_800_000, true), z.record(z.string(), z.unknown()).transform((d) => JSON.stringify(d))]).optional(),
  framework: asGiven(text(100)),
  usecases: z
    .preprocess((v) => (v === undefined || v === null || v === "" ? [] : parsedList(v)), templateField.usecases.unwrap())
    .transform((list) => JSON.stringify(list)),
  type: asGiven(templateField.type.unwrap()),
  iconSrc: asGiven(text(10_000)),
  schema: asGiven(text(500_000)),
  func: asGiven(text(500_000)),
  ...dates,
});

/** What reading a record gives: its rows, by table. */
export type RowOut = (table: TableName, row: unknown[]) => void;

/** A record that fails its checks: the import answers 400 with this, naming the record. */
export class RecordError extends Error {
  constructor(
    readonly label: string,
    detail: string,
  ) {
    super(`${label}: ${detail}`);
  }
}

/** `raw` checked by `schema`; a RecordError naming the first issue when it fails. */
export function check<T extends z.ZodType>(schema: T, raw: unknown, label: string): z.infer<T> {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new RecordError(label, "must be an object");
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new RecordError(label, `${issue.path.map(String).join(".") || "record"}: ${issue.message}`);
}
