import { z } from "@hono/zod-openapi";
import { CHATFLOW_TYPES } from "../db/enums";
import { jsonString, name, text, uuid } from "./common";

// flowData is the whole graph; D1 rows stop at 2 MB, so cap it below that with room to spare.
const FLOW_DATA_BYTES = 1_800_000;
const CONFIG_BYTES = 100_000;
const config = () => jsonString(CONFIG_BYTES).nullish();

const optionalFields = {
  deployed: z.boolean().optional(),
  isPublic: z.boolean().optional(),
  apikeyid: uuid().nullish(),
  chatbotConfig: config(),
  apiConfig: config(),
  analytic: config(),
  speechToText: config(),
  textToSpeech: config(),
  followUpPrompts: config(),
  category: text(1000).nullish(),
  type: z.enum(CHATFLOW_TYPES).optional(),
};

export const ChatflowCreate = z
  .object({
    id: uuid().optional(),
    name: name(),
    flowData: jsonString(FLOW_DATA_BYTES, true),
    ...optionalFields,
  })
  .openapi("ChatflowCreate");

export const ChatflowUpdate = z
  .object({
    name: name().optional(),
    flowData: jsonString(FLOW_DATA_BYTES, true).optional(),
    ...optionalFields,
  })
  .openapi("ChatflowUpdate");

export const ChatflowListQuery = z.object({ type: z.enum(CHATFLOW_TYPES).optional() });

const nullableString = () => z.string().nullable();
export const Chatflow = z
  .object({
    id: z.string(),
    name: z.string(),
    flowData: z.string(),
    deployed: z.boolean(),
    isPublic: z.boolean(),
    apikeyid: nullableString(),
    chatbotConfig: nullableString(),
    apiConfig: nullableString(),
    analytic: nullableString(),
    speechToText: nullableString(),
    textToSpeech: nullableString(),
    followUpPrompts: nullableString(),
    category: nullableString(),
    type: z.enum(CHATFLOW_TYPES),
    createdDate: z.string(),
    updatedDate: z.string(),
  })
  .openapi("Chatflow");

/** What POST and PUT answer: the record as stored, plus a warning that is never stored. */
export const ChatflowSaved = Chatflow.extend({
  warning: z
    .string()
    .optional()
    .openapi({
      description:
        "Present only when the flowData just saved cannot run as it is: it names the nodes edgeflow does not support " +
        '("Unsupported nodes: faiss, serpAPI", sorted), or says why the graph cannot be read ("flowData cannot be run: …"). ' +
        "The chatflow is saved either way; a prediction on it answers 400 with the same reason.",
      example: "Unsupported nodes: faiss, serpAPI",
    }),
}).openapi("ChatflowSaved");

export const ApiKeyParam = z.object({ apikey: text(256) });
