import { z } from "@hono/zod-openapi";
import { ASSISTANT_TYPES } from "../db/enums";
import { PageQuery, text, uuid } from "./common";

const ASSISTANT_TOOLS = ["function", "code_interpreter", "file_search"] as const;

const DETAILS_BYTES = 200_000;

// Known fields are checked; anything else a Flowise export carries is kept as it is.
const AssistantDetails = z
  .looseObject({
    id: text(1000).optional(),
    name: text(1000).optional(),
    description: text(100_000).optional(),
    model: text(1000).optional(),
    instructions: text(100_000).optional(),
    temperature: z.number().min(0).max(2).optional(),
    top_p: z.number().min(0).max(1).optional(),
    tools: z.array(z.enum(ASSISTANT_TOOLS)).max(100).optional(),
    tool_resources: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((d) => JSON.stringify(d).length <= DETAILS_BYTES, { message: `details must be at most ${DETAILS_BYTES} bytes as JSON` })
  .openapi("AssistantDetails");

const optionalFields = {
  credential: uuid().nullish(),
  iconSrc: text(10_000).nullish(),
  type: z.enum(ASSISTANT_TYPES).optional(),
};

export const AssistantCreate = z.object({ id: uuid().optional(), details: AssistantDetails, ...optionalFields }).openapi("AssistantCreate");
export const AssistantUpdate = z.object({ details: AssistantDetails.optional(), ...optionalFields }).openapi("AssistantUpdate");

export const Assistant = z
  .object({
    id: z.string(),
    details: z.record(z.string(), z.unknown()),
    credential: z.string().nullable(),
    iconSrc: z.string().nullable(),
    type: z.enum(ASSISTANT_TYPES),
    createdDate: z.string(),
    updatedDate: z.string(),
  })
  .openapi("Assistant");

/** GET /assistants: pages, and `type` (Flowise's filter; the studio asks for CUSTOM). */
export const AssistantListQuery = PageQuery.extend({
  type: z
    .string()
    .transform((s) => s.toUpperCase())
    .pipe(z.enum(ASSISTANT_TYPES))
    .optional()
    .openapi({ description: "CUSTOM, OPENAI or AZURE" }),
});
