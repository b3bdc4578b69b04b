// The table of Flowise's shapes the studio reads (studio-shapes.ts applies it): one entry per call
// where the UI, unchanged, needs Flowise's shape and the contract answers another. docs/studio.md,
// "Flowise's shapes for the studio", lists them with the reason each is there.
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { VectorConfigBody } from "../schemas/document-store-wizard";
import { withSource } from "../services/document-store/wizard-loader";
import { saveVectorConfig } from "../services/document-store/wizard-vector";
import { credentialExists, feedbackOfMessages, flowsUsingKeys, revealedKeys } from "../services/studio-views";

export type Json = unknown;

export interface StudioShape {
  method: "GET" | "POST" | "PUT";
  /** The path under /api/v1. */
  path: RegExp;
  acceptBody?: (body: Record<string, unknown>) => void;
  studioBody?: (body: Record<string, unknown>, c: Context<AppEnv>) => void | Promise<void>;
  studioQuery?: (query: URLSearchParams) => void;
  /** `asked`: the query as the studio sent it (before studioQuery). */
  studioAnswer?: (body: Json, c: Context<AppEnv>, asked: URLSearchParams) => Json | Promise<Json>;
}

type Item = Record<string, unknown>;

const isItem = (value: unknown): value is Item => !!value && typeof value === "object" && !Array.isArray(value);

/** A list answer's items: a plain array, or `{data, total}` when paged. */
const itemsOf = (body: Json): Item[] =>
  (Array.isArray(body) ? body : isItem(body) && Array.isArray(body.data) ? body.data : []).filter(isItem);

/** Each item of a list answer, or the one record, changed in place; the answer returned. */
function eachItem(body: Json, change: (item: Item) => void): Json {
  for (const item of isItem(body) && !Array.isArray(body.data) ? [body] : itemsOf(body)) change(item);
  return body;
}

/** JSON text to what it holds (a field the contract answers as text and Flowise as an array), else as it was. */
function parsedField(item: Item, field: string): void {
  const value = item[field];
  if (typeof value !== "string") return;
  try {
    item[field] = JSON.parse(value);
  } catch {
    // not JSON: left as it is
  }
}

/**
 * API keys as Flowise lists them: `chatFlows` (the flows bound to each key: the page counts them)
 * and the full `apiKey` (its eye icon shows it, Copy copies it). Only a key kept sealed can be
 * revealed; an older one stays masked.
 */
async function keysForStudio(body: Json, c: Context<AppEnv>): Promise<Json> {
  const items = isItem(body) && !Array.isArray(body.data) ? [body] : itemsOf(body);
  const ids = items.map((k) => k.id).filter((id): id is string => typeof id === "string");
  const [keys, flows] = await Promise.all([
    revealedKeys(c.var.services, c.env.CREDENTIAL_ENCRYPTION_KEY, ids),
    flowsUsingKeys(c.var.services, ids),
  ]);
  for (const item of items) {
    const id = item.id as string;
    item.chatFlows = flows.get(id) ?? [];
    item.apiKey = keys.get(id) ?? item.apiKey;
  }
  return body;
}

const wantsAttachedFeedback = (query: URLSearchParams) => query.get("feedback") === "true" && !query.get("feedbackType");

/** Every message with its feedback attached (Flowise's `feedback=true`), not only the rated ones. */
async function feedbackAttached(body: Json, c: Context<AppEnv>, asked: URLSearchParams): Promise<Json> {
  if (!wantsAttachedFeedback(asked)) return body;
  const messages = itemsOf(body);
  const feedback = await feedbackOfMessages(
    c.var.services,
    messages.map((m) => m.id).filter((id): id is string => typeof id === "string"),
  );
  for (const message of messages) message.feedback = feedback.get(message.id as string) ?? null;
  return body;
}

/** followUpPrompts as Flowise answers it, the stored JSON text: the test chat JSON.parses it (an array would throw). */
const followUpsAsText = (body: Json) =>
  eachItem(body, (item) => {
    if (Array.isArray(item.followUpPrompts)) item.followUpPrompts = JSON.stringify(item.followUpPrompts);
  });

const chatMessages: Pick<StudioShape, "studioQuery" | "studioAnswer"> = {
  // The contract's feedback=true keeps only rated messages; Flowise's attaches feedback to every one.
  studioQuery: (query) => {
    if (wantsAttachedFeedback(query)) query.delete("feedback");
  },
  studioAnswer: async (body, c, asked) => followUpsAsText(await feedbackAttached(body, c, asked)),
};

/** Assistants' `details`: the page sends JSON text and JSON.parses what it reads. */
const detailsAsText = (body: Json) =>
  eachItem(body, (item) => {
    if (item.details !== undefined && typeof item.details !== "string") item.details = JSON.stringify(item.details);
  });
const detailsFromText = (body: Item) => parsedField(body, "details");

/**
 * The page gives a new custom assistant a made-up `credential` (a fresh uuid; Flowise ignores it,
 * a custom assistant's model carries its own): one that names no stored credential is dropped.
 */
async function placeholderCredentialDropped(body: Item, c: Context<AppEnv>): Promise<void> {
  if (body.type === "CUSTOM" && typeof body.credential === "string" && !(await credentialExists(c.var.services, body.credential))) {
    delete body.credential;
  }
}

/**
 * A `description` the contract answers null (made without one through the API) as `""`: the Tools and
 * Document Stores pages' search calls `description.toLowerCase()` on every item whose name does not
 * match, and one null is a white page. (Flowise's tools always have one; its stores made so crash it too.)
 */
const blankDescription = (item: Item) => {
  if (item.description === null) item.description = "";
};
const descriptionsAsText = (body: Json) => eachItem(body, blankDescription);

/**
 * The user's templates with `templateName` (their `name`) beside it: the marketplace page's search runs the
 * same filter over both tabs, reading `templateName.toLowerCase()`, which only the built-in templates have
 * (Flowise's own server answers none either: My Templates' search is a white page there).
 */
const templateNames = (body: Json) =>
  eachItem(body, (item) => {
    if (item.templateName === undefined && typeof item.name === "string") item.templateName = item.name;
  });

/**
 * Document stores: `loaders` and `whereUsed` as arrays (the store page maps over them), each loader
 * with its `source`; the component configs as objects (the vector store page reads `.name`, `.config`).
 */
const storeArrays = (body: Json) =>
  eachItem(body, (item) => {
    blankDescription(item);
    for (const field of ["loaders", "whereUsed", "embeddingConfig", "vectorStoreConfig", "recordManagerConfig"]) parsedField(item, field);
    if (Array.isArray(item.loaders)) item.loaders = item.loaders.map((l) => (isItem(l) ? withSource(l as never) : l));
  });

/** Flowise's insert body: a component the page has none of comes as `''` or null (absent to the contract). */
function insertBody(body: Item): void {
  for (const kind of ["embedding", "vectorStore", "recordManager"]) {
    if (!body[`${kind}Name`]) delete body[`${kind}Name`];
    if (body[`${kind}Config`] === null) delete body[`${kind}Config`];
  }
  if (body.docId === null || body.docId === "") delete body.docId;
}

/** The page's insert saves its choice first (`isStrictSave`: a component not chosen is cleared), as Flowise's does. */
async function strictSaveFirst(body: Item, c: Context<AppEnv>): Promise<void> {
  if (body.isStrictSave !== true) return;
  const parsed = VectorConfigBody.safeParse(body);
  if (parsed.success) await saveVectorConfig(c.var.services, parsed.data, true);
}

export const STUDIO_SHAPES: StudioShape[] = [
  { method: "GET", path: /^\/apikey$/, studioAnswer: keysForStudio },
  { method: "GET", path: /^\/apikey\/[^/]+$/, studioAnswer: keysForStudio },
  { method: "GET", path: /^\/chatmessage\/[^/]+$/, ...chatMessages },
  { method: "GET", path: /^\/internal-chatmessage\/[^/]+$/, ...chatMessages },
  {
    method: "POST",
    path: /^\/assistants$/,
    acceptBody: detailsFromText,
    studioBody: placeholderCredentialDropped,
    studioAnswer: detailsAsText,
  },
  { method: "PUT", path: /^\/assistants\/[^/]+$/, acceptBody: detailsFromText, studioAnswer: detailsAsText },
  { method: "GET", path: /^\/assistants(\/[^/]+)?$/, studioAnswer: detailsAsText },
  { method: "GET", path: /^\/document-store\/store(\/[^/]+)?$/, studioAnswer: storeArrays },
  { method: "GET", path: /^\/tools$/, studioAnswer: descriptionsAsText },
  { method: "GET", path: /^\/marketplaces\/custom$/, studioAnswer: templateNames },
  { method: "POST", path: /^\/document-store\/vectorstore\/insert$/, acceptBody: insertBody, studioBody: strictSaveFirst },
];
