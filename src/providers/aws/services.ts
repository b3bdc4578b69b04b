// The AWS calls Flowise's AWS nodes make, over client.ts (each as the SDK sends it):
//   Bedrock Agent Runtime Retrieve  POST /knowledgebases/{id}/retrieve (REST JSON)   awsBedrockKBRetriever
//   SNS Publish                     POST / Action=Publish (Query API, form-encoded; XML answer)  awsSNS
//   DynamoDB PutItem / Query        JSON 1.0 (X-Amz-Target DynamoDB_20120810.*)       awsDynamoDBKVStorage
//   DynamoDB GetItem / UpdateItem   the same, Flowise's chat memory layout              DynamoDBChatMemory
import { Document } from "@langchain/core/documents";
import { ApiError, fail } from "../../errors";
import { firstCodePoints, utf8Length } from "../../lib/utf8";
import { str } from "../../lib/inputs";
import { credentialOf } from "../config";
import type { ProviderDeps } from "../types";
import { type AwsClient, awsJsonTarget, awsRestJson, awsSend } from "./client";
import type { AwsCredentials } from "./sigv4";

// ---- Bedrock Knowledge Base ---------------------------------------------------------------------

export interface KnowledgeBaseQuery {
  knowledgeBaseId: string;
  topK: number;
  searchType?: string;
  filter?: unknown;
}

type Location = Record<string, { uri?: string; url?: string } | string | undefined>;

/** Where a result came from, as LangChain's AmazonKnowledgeBaseRetriever reads it per location type. */
function sourceOf(location: Location | undefined): string | undefined {
  const field: Record<string, string> = {
    CONFLUENCE: "confluenceLocation",
    SALESFORCE: "salesforceLocation",
    SHAREPOINT: "sharePointLocation",
    WEB: "webLocation",
  };
  const at = location?.[field[String(location?.type)] ?? "s3Location"];
  return typeof at === "object" ? (at.url ?? at.uri) : undefined;
}

/** Retrieve's bounds (its API reference): numberOfResults 1–100, the query text at most 20,000 characters. */
const KB_MAX_RESULTS = 100;
const KB_MAX_QUERY = 20_000;

/** Retrieve: the knowledge base's best chunks as documents (text with white space collapsed, "..." dropped, as LangChain). */
export async function retrieveKnowledgeBase(client: AwsClient, q: KnowledgeBaseQuery, query: string): Promise<Document[]> {
  // A topK over 100 (or a question over 20,000 characters) was a ValidationException on every run:
  // ask for at most 100 chunks, search by the question's first 20,000 characters.
  const vectorSearchConfiguration: Record<string, unknown> = { numberOfResults: Math.min(Math.max(q.topK, 1), KB_MAX_RESULTS) };
  if (q.searchType) vectorSearchConfiguration.overrideSearchType = q.searchType;
  if (q.filter !== undefined) vectorSearchConfiguration.filter = q.filter;
  const answer = await awsRestJson(client, ["knowledgebases", q.knowledgeBaseId, "retrieve"], {
    retrievalQuery: { text: firstCodePoints(query, KB_MAX_QUERY) },
    retrievalConfiguration: { vectorSearchConfiguration },
  });
  const results = Array.isArray(answer.retrievalResults) ? (answer.retrievalResults as Array<Record<string, unknown>>) : [];
  return results.map((r) => {
    const text = String((r.content as { text?: unknown } | undefined)?.text ?? "");
    return new Document({
      pageContent: text.replace(/\s+/g, " ").replace(/\.\.\./g, ""),
      metadata: { source: sourceOf(r.location as Location), score: r.score, ...((r.metadata as object) ?? {}) },
    });
  });
}

// ---- SNS ----------------------------------------------------------------------------------------

/** Publish: the message to the topic; its MessageId. */
export async function snsPublish(client: AwsClient, topicArn: string, message: string): Promise<string> {
  const form: Record<string, string> = { Action: "Publish", Version: "2010-03-31", TopicArn: topicArn, Message: message };
  // A FIFO topic (name ends in .fifo) refuses a message without a group, and without a deduplication id
  // unless content-based deduplication is on: one group keeps the tool's messages in order, a fresh id
  // per call delivers each (our retry of the same call resends the same id, so it is delivered once).
  if (topicArn.endsWith(".fifo")) Object.assign(form, { MessageGroupId: "default", MessageDeduplicationId: crypto.randomUUID() });
  const body = new URLSearchParams(form).toString();
  const answer = await awsSend(client, {
    method: "POST",
    path: [""],
    headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
    body,
  });
  const id = /<MessageId>([^<]*)<\/MessageId>/.exec(answer.text())?.[1];
  if (!id) throw fail("UPSTREAM_FAILED", `${client.service.label} answered Publish without a MessageId`);
  return id;
}

// ---- DynamoDB -----------------------------------------------------------------------------------

export type AttributeValue = { S?: string; N?: string; L?: AttributeValue[]; M?: Record<string, AttributeValue> };
type Item = Record<string, AttributeValue>;

export const dynamo = (client: AwsClient, operation: string, body: Record<string, unknown>) =>
  awsJsonTarget(client, `DynamoDB_20120810.${operation}`, body);

/** The KV tool's store: one item per version (pk = [prefix#]key, sk = epoch ms), as Flowise's tool writes it. */
export async function kvStore(client: AwsClient, table: string, fullKey: string, value: string, now: Date): Promise<string> {
  const iso = now.toISOString();
  const Item: Item = { pk: { S: fullKey }, sk: { S: String(now.getTime()) }, value: { S: value }, timestamp: { S: iso } };
  await dynamo(client, "PutItem", { TableName: table, Item });
  return iso;
}

/** The KV tool's retrieve: the nth latest version (Query newest first, Limit n). */
export async function kvRetrieve(client: AwsClient, table: string, fullKey: string, nth: number) {
  const answer = await dynamo(client, "Query", {
    TableName: table,
    KeyConditionExpression: "pk = :pk",
    ExpressionAttributeValues: { ":pk": { S: fullKey } },
    ScanIndexForward: false,
    Limit: nth,
  });
  const items = (Array.isArray(answer.Items) ? answer.Items : []) as Item[];
  const item = items[nth - 1];
  if (!item) return { value: null, timestamp: null };
  return { value: item.value?.S || null, timestamp: item.timestamp?.S || item.sk?.S || null };
}

export interface ChatTableKey {
  table: string;
  /** The partition key's attribute name and the session id it holds. */
  key: Item;
}

const MESSAGES = "messages";

/** The session's item (undefined when none): what GetItem answered. */
export async function loadChatItem(client: AwsClient, at: ChatTableKey): Promise<Item | undefined> {
  return (await dynamo(client, "GetItem", { TableName: at.table, Key: at.key })).Item as Item | undefined;
}

/** A session's messages in Flowise's layout: attribute `messages`, a list of {type: human|ai, text[, role]}. */
export function chatMessagesOf(item: Item | undefined): Array<{ type: string; text: string }> {
  return (item?.[MESSAGES]?.L ?? [])
    .map((m) => ({ type: m.M?.type?.S, text: m.M?.text?.S }))
    .filter((m): m is { type: string; text: string } => m.type !== undefined && m.text !== undefined);
}

/** DynamoDB's item cap, 400 KB, less room for UpdateItem's own accounting of the update. */
const MAX_ITEM_BYTES = 400 * 1024 - 1024;
/** Writes of a trimmed list tried, each after reading again what another run appended meanwhile. */
const TRIM_ATTEMPTS = 3;

/** A value's size by AWS's "Item sizes and formats": UTF-8 bytes; list/map 3 bytes + 1 per element (+ a map's names). */
function valueSize(v: AttributeValue): number {
  if (v.S !== undefined) return utf8Length(v.S);
  if (v.L) return 3 + v.L.reduce((n, e) => n + 1 + valueSize(e), 0);
  if (v.M) return 3 + Object.entries(v.M).reduce((n, [k, e]) => n + 1 + utf8Length(k) + valueSize(e), 0);
  return utf8Length(JSON.stringify(v)); // numbers and types we do not write: an upper bound
}

/**
 * Appends messages to the session's list (created when missing), as Flowise's UpdateItem does, while
 * the item stays under DynamoDB's 400 KB; past it (a long conversation: list_append alone failed
 * every later turn with "Item size to update has exceeded the maximum allowed size") the list is
 * rewritten without its oldest messages, from a human one on. `stored` is the item as read before the run.
 */
export async function appendChatMessages(
  client: AwsClient,
  at: ChatTableKey,
  messages: Array<{ type: string; text: string }>,
  stored: Item | undefined,
) {
  for (let attempt = 1, item = stored; ; attempt++) {
    try {
      return await writeChatMessages(client, at, messages, item);
    } catch (err) {
      // Another run appended between our read and the trimmed write (its condition failed): read again.
      if (attempt >= TRIM_ATTEMPTS || !(err instanceof ApiError && err.message.includes("ConditionalCheckFailedException"))) throw err;
      item = await loadChatItem(client, at);
    }
  }
}

async function writeChatMessages(client: AwsClient, at: ChatTableKey, messages: Array<{ type: string; text: string }>, stored?: Item) {
  const added: AttributeValue[] = messages.map((m) => ({ M: { type: { S: m.type }, text: { S: m.text } } }));
  const list = stored?.[MESSAGES]?.L ?? [];
  const others = Object.entries({ ...at.key, ...stored }).filter(([k]) => k !== MESSAGES);
  let size = others.reduce((n, [k, v]) => n + utf8Length(k) + valueSize(v), utf8Length(MESSAGES) + 3);
  for (const e of [...list, ...added]) size += 1 + valueSize(e);
  const base = { TableName: at.table, Key: at.key, ExpressionAttributeNames: { "#m": MESSAGES } };
  if (size <= MAX_ITEM_BYTES) {
    await dynamo(client, "UpdateItem", {
      ...base,
      ExpressionAttributeValues: { ":empty_list": { L: [] }, ":m": { L: added } },
      UpdateExpression: "SET #m = list_append(if_not_exists(#m, :empty_list), :m)",
    });
    return;
  }
  let drop = 0;
  while (drop < list.length && (size > MAX_ITEM_BYTES || list[drop].M?.type?.S !== "human")) size -= 1 + valueSize(list[drop++]);
  if (size > MAX_ITEM_BYTES)
    throw fail("LIMIT_EXCEEDED", `${client.service.label}: this exchange alone is over DynamoDB's 400 KB item limit; it was not saved`);
  // Only over the list as read: another run's write since (an append, or a trim of its own that left the
  // same length) changed the length or the last message, fails the condition, and is read again, not lost.
  await dynamo(client, "UpdateItem", {
    ...base,
    ExpressionAttributeNames: { "#m": MESSAGES, "#t": "text" },
    ExpressionAttributeValues: {
      ":m": { L: [...list.slice(drop), ...added] },
      ":n": { N: String(list.length) },
      ":last": list[list.length - 1].M?.text ?? { NULL: true },
    },
    UpdateExpression: "SET #m = :m",
    ConditionExpression: `size(#m) = :n AND #m[${list.length - 1}].#t = :last`,
  });
}

/** DynamoDBChatMemory's credential (dynamodbMemoryApi: accessKey, secretAccessKey). */
export async function dynamoMemoryCredentials(config: Record<string, unknown>, deps: ProviderDeps, node: string): Promise<AwsCredentials> {
  const c = await credentialOf(config, deps);
  const accessKeyId = str(c.accessKey);
  const secretAccessKey = str(c.secretAccessKey);
  if (!accessKeyId || !secretAccessKey)
    throw fail("MISSING_CREDENTIAL", `${node} needs a dynamodbMemoryApi credential with an Access Key and a Secret Access Key`);
  return { accessKeyId, secretAccessKey };
}

// ---- Kendra -------------------------------------------------------------------------------------

type KendraItem = Record<string, unknown> & {
  DocumentURI?: string;
  DocumentAttributes?: Array<{ Key?: string; Value?: Record<string, unknown> }>;
};

const cleanText = (s: string) => s.replace(/\s+/g, " ").replace(/\.\.\./g, "");

/** A Kendra result as LangChain's AmazonKendraRetriever makes it: title and excerpt, the URI, the attributes. */
function kendraDocument(item: KendraItem, title: string, excerpt: string): Document {
  const attributes: Record<string, unknown> = {};
  for (const a of item.DocumentAttributes ?? [])
    if (a.Key && a.Value)
      attributes[a.Key] = a.Value.DateValue ?? a.Value.LongValue ?? a.Value.StringListValue ?? a.Value.StringValue ?? "";
  const pageContent = `${title ? `Document Title: ${title}\n` : ""}${excerpt ? `Document Excerpt: \n${excerpt}\n` : ""}`;
  return new Document({ pageContent, metadata: { source: item.DocumentURI, title, excerpt, document_attributes: attributes } });
}

/** Retrieve (passages) for the query; when it finds nothing, Query (answers and excerpts), as LangChain does. */
export async function kendraSearch(client: AwsClient, indexId: string, query: string, topK: number, filter?: unknown): Promise<Document[]> {
  const body = { IndexId: indexId, QueryText: query, PageSize: topK, ...(filter ? { AttributeFilter: filter } : {}) };
  const target = (op: string) => `AWSKendraFrontendService.${op}`;
  const retrieved = ((await awsJsonTarget(client, target("Retrieve"), body, "1.1")).ResultItems ?? []) as KendraItem[];
  if (retrieved.length)
    return retrieved
      .slice(0, topK)
      .map((i) => kendraDocument(i, String(i.DocumentTitle ?? ""), i.Content ? cleanText(String(i.Content)) : ""));
  const queried = ((await awsJsonTarget(client, target("Query"), body, "1.1")).ResultItems ?? []) as KendraItem[];
  return queried.slice(0, topK).map((i) => {
    const extra = (i.AdditionalAttributes as Array<{ Key?: string; Value?: { TextWithHighlightsValue?: { Text?: string } } }>) ?? [];
    const excerpt =
      extra[0]?.Key === "AnswerText"
        ? extra[0].Value?.TextWithHighlightsValue?.Text
        : (i.DocumentExcerpt as { Text?: string } | undefined)?.Text;
    return kendraDocument(i, String((i.DocumentTitle as { Text?: string } | undefined)?.Text ?? ""), cleanText(excerpt ?? ""));
  });
}

const base64 = (text: string) => {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
};

/** BatchPutDocument, 10 a call, each document as plain text titled by its title or source (Flowise's upsert). */
export async function kendraPut(client: AwsClient, indexId: string, docs: Array<{ id: string; title: string; text: string }>) {
  for (let i = 0; i < docs.length; i += 10) {
    const Documents = docs.slice(i, i + 10).map((d) => ({ Id: d.id, Title: d.title, Blob: base64(d.text), ContentType: "PLAIN_TEXT" }));
    const answer = await awsJsonTarget(client, "AWSKendraFrontendService.BatchPutDocument", { IndexId: indexId, Documents }, "1.1");
    const failed = answer.FailedDocuments as unknown[] | undefined;
    if (failed?.length) throw fail("UPSTREAM_FAILED", `AWS Kendra failed to index some documents: ${JSON.stringify(failed).slice(0, 300)}`);
  }
}
