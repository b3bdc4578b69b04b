import { z } from "@hono/zod-openapi";
import { jsonString, name, text, uuid } from "./common";

/** A marketplace entry, as Flowise's GET /marketplaces/templates answers it. */
export const MarketplaceTemplate = z
  .object({
    id: z.string(),
    templateName: z.string(),
    flowData: z.string().openapi({ description: "The flow as Flowise saves it: {nodes, edges}, JSON serialized as a string" }),
    description: z.string(),
    type: z.enum(["Chatflow", "AgentflowV2", "Tool"]),
    categories: z.array(z.string()),
    usecases: z.array(z.string()),
    framework: z.array(z.string()),
    badge: z.string().optional(),
    speechToText: z
      .string()
      .optional()
      .openapi({ description: "A voice template's speech settings, as a chatflow's speechToText holds them" }),
    textToSpeech: z
      .string()
      .optional()
      .openapi({ description: "A voice template's speech settings, as a chatflow's textToSpeech holds them" }),
  })
  .openapi("MarketplaceTemplate");

// A tool's argument rows as JSON text (as a tool stores them), or the rows themselves: Flowise's tool dialog
// ("Save As Template") sends its grid's rows as an array. Kept as text either way.
const toolSchema = z.union([
  jsonString(200_000),
  z
    .array(z.record(z.string(), z.unknown()))
    .max(1_000)
    .transform((rows) => JSON.stringify(rows))
    .pipe(jsonString(200_000)),
]);

export const CustomTemplateCreate = z
  .object({
    name: name(),
    description: text(100_000).nullish(),
    badge: text(100).nullish(),
    usecases: z.array(text(200)).max(50).optional(),
    type: z.enum(["Chatflow", "Agentflow", "AgentflowV2", "Tool"]).optional(),
    chatflowId: uuid().optional().openapi({ description: "The saved flow to make a template of" }),
    tool: z
      .object({ iconSrc: text(10_000).nullish(), schema: toolSchema.nullish(), func: text(500_000).nullish() })
      .optional()
      .openapi({ description: "A tool to make a template of (instead of chatflowId)" }),
  })
  .openapi("CustomTemplateCreate");

export const CustomTemplate = z
  .object({
    id: z.string(),
    name: z.string(),
    flowData: z.string().optional(),
    description: z.string().nullable(),
    badge: z.string(),
    framework: z.string(),
    usecases: z.array(z.string()),
    type: z.string().nullable(),
    categories: z.array(z.string()),
    iconSrc: z.string().nullable().optional(),
    schema: z.string().nullable().optional(),
    func: z.string().nullable().optional(),
    createdDate: z.string(),
    updatedDate: z.string(),
  })
  .openapi("CustomTemplate");
