// The AWS calls Flowise's AWS nodes make, over client.ts (each as the SDK sends it):
//   Bedrock Agent Runtime Retrieve  POST /knowledgebases/{id}/retrieve (REST JSON)   awsBedrockKBRetriever
//   SNS Publish                     POST / Action=Publish (Query API, form-encoded; XML answer)  awsSNS
//   DynamoDB PutItem / Query        JSON 1.0 (X-Amz-Target DynamoDB_20120810.*)       awsDynamoDBKVStorage
//   DynamoDB GetItem / UpdateItem   the same, Flowise's chat memory layout              DynamoDBChatMemory
import { Document } from "@langchain/core/documents";
import { fail } from "../../errors";
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

/** Retrieve: the knowledge base's best chunks as documents (text with white space collapsed, "..." dropped, as LangChain). */
export async function retrieveKnowledgeBase(client: AwsClient, q: KnowledgeBaseQuery, query: string): Promise<Document[]> {
  const vectorSearchConfiguration: Record<string, unknown> = { numberOfResults: q.topK };
  if (q.searchType) vectorSearchConfiguration.overrideSearchType = q.searchType;
  if (q.filter !== undefined) vectorSearchConfiguration.filter = q.filter;
  const answer = await awsRestJson(client, ["knowledgebases", q.knowledgeBaseId, "retrieve"], {
    retrievalQuery: { text: query },
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
  const body = new URLSearchParams({ Action: "Publish", Version: "2010-03-31", TopicArn: topicArn, Message: message }).toString();
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

/** A session's messages in Flowise's layout: attribute `messages`, a list of {type: human|ai, text[, role]}. */
export async function loadChatMessages(client: AwsClient, at: ChatTableKey): Promise<Array<{ type: string; text: string }>> {
  const answer = await dynamo(client, "GetItem", { TableName: at.table, Key: at.key });
  const list = ((answer.Item as Item | undefined)?.[MESSAGES]?.L ?? []) as AttributeValue[];
  return list
    .map((m) => ({ type: m.M?.type?.S, text: m.M?.text?.S }))
    .filter((m): m is { type: string; text: string } => m.type !== undefined && m.text !== undefined);
}

/** Appends messages to the session's list (created when missing), as Flowise's UpdateItem does. */
export async function appendChatMessages(client: AwsClient, at: ChatTableKey, messages: Array<{ type: string; text: string }>) {
  await dynamo(client, "UpdateItem", {
    TableName: at.table,
    Key: at.key,
    ExpressionAttributeNames: { "#m": MESSAGES },
    ExpressionAttributeValues: {
      ":empty_list": { L: [] },
      ":m": { L: messages.map((m) => ({ M: { type: { S: m.type }, text: { S: m.text } } })) },
    },
    UpdateExpression: "SET #m = list_append(if_not_exists(#m, :empty_list), :m)",
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
