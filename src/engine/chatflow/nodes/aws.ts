// Flowise's AWS nodes that are neither models nor tools (the calls: src/providers/aws/services.ts):
//   awsBedrockKBRetriever  a retriever over a Bedrock Knowledge Base (Retrieve): region,
//                 knoledgeBaseID (Flowise's spelling), topK (5), searchType (HYBRID | SEMANTIC),
//                 filter (JSON, Bedrock's retrieval filter); credential awsApi
//   DynamoDBChatMemory  a memory kept in a DynamoDB table in Flowise's layout (the partitionKey
//                 attribute holds the session id, `messages` the list of {type, text}), so a table
//                 Flowise filled reads here; like the Redis memories, it writes the exchange after a
//                 successful run (past DynamoDB's 400 KB item limit, without the oldest messages);
//                 credential dynamodbMemoryApi (accessKey, secretAccessKey)
//   kendra        AWS Kendra as a vector store: search by Retrieve (Query when Retrieve finds
//                 nothing), topK (10), attributeFilter (JSON); POST /vector/upsert sends the loaders'
//                 documents as plain text with BatchPutDocument (no embeddings); both outputs are
//                 the retriever, as in Flowise; credential awsApi
import { fail } from "../../../errors";
import { AWS_SERVICES, awsClient } from "../../../providers/aws/client";
import { awsCredentials, regionOf } from "../../../providers/aws/config";
import {
  type ChatTableKey,
  appendChatMessages,
  chatMessagesOf,
  dynamoMemoryCredentials,
  kendraPut,
  kendraSearch,
  loadChatItem,
  retrieveKnowledgeBase,
} from "../../../providers/aws/services";
import { Document } from "@langchain/core/documents";
import { asList, providerConfig, str } from "../../core/inputs";
import type { ChatTurn, UpsertCounts } from "../../core/types";
import { memoryInstance } from "../instances";
import type { BuildArgs, NodeDefinition } from "../types";
import { vectorStoreNames } from "./document-loaders";
import { NodeRetriever, labelOf, positive, retrieverNode } from "./retrievers/common";

const depsOf = ({ ctx }: BuildArgs) => ({ env: ctx.runtime.providers, getCredential: ctx.getCredential, signal: ctx.signal });

function filterOf(value: unknown, label: string, example = '{"equals": {"key": "k", "value": "v"}}'): unknown {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "object") return value;
  try {
    return JSON.parse(String(value));
  } catch {
    throw fail("INVALID_FLOW", `${label} filter is not JSON: write the service's filter, e.g. ${example}`);
  }
}

const kbRetriever = retrieverNode("awsBedrockKBRetriever", async (args) => {
  const { node, inputs } = args;
  const label = labelOf(args);
  const knowledgeBaseId = str(inputs.knoledgeBaseID) ?? str(inputs.knowledgeBaseId);
  if (!knowledgeBaseId) throw fail("INVALID_FLOW", `${label} needs its Knowledge Base ID (knoledgeBaseID)`);
  // Retrieve refuses any other ID (ValidationException on every run): 10 letters/digits, or the knowledge base's ARN.
  if (!/^[0-9a-zA-Z]{10}$|^arn:aws(-[^:]+)?:bedrock:[a-z0-9-]{1,20}:[0-9]{12}:knowledge-base\/[0-9a-zA-Z]{10}$/.test(knowledgeBaseId))
    throw fail("INVALID_FLOW", `${label} Knowledge Base ID must be 10 letters or digits (or its ARN), got ${knowledgeBaseId}`);
  const searchType = str(inputs.searchType);
  if (searchType && searchType !== "HYBRID" && searchType !== "SEMANTIC")
    throw fail("INVALID_FLOW", `${label} searchType must be HYBRID or SEMANTIC (got ${searchType})`);
  const config = providerConfig(node, inputs);
  const deps = depsOf(args);
  const region = regionOf(config, label);
  const client = awsClient(AWS_SERVICES.bedrockAgent, region, await awsCredentials(config, deps, label), deps.env, { signal: deps.signal });
  const topK = Math.floor(positive(inputs.topK, 5));
  const q = { knowledgeBaseId, topK, searchType, filter: filterOf(inputs.filter, label) };
  return new NodeRetriever((query) => retrieveKnowledgeBase(client, q, query), topK);
});

const ROLES: Record<string, ChatTurn["role"]> = { human: "userMessage", ai: "apiMessage" };

const dynamoMemory: NodeDefinition = {
  name: "DynamoDBChatMemory",
  category: "Memory",
  async build(args) {
    const { node, inputs, ctx } = args;
    const label = labelOf(args);
    const table = str(inputs.tableName);
    const partitionKey = str(inputs.partitionKey);
    if (!table || !partitionKey) throw fail("INVALID_FLOW", `${label} needs its Table Name and Partition Key`);
    const config = providerConfig(node, inputs);
    const deps = depsOf(args);
    const region = regionOf(config, label);
    const credentials = await dynamoMemoryCredentials(config, deps, label);
    const client = awsClient(AWS_SERVICES.dynamodb, region, credentials, deps.env, { signal: deps.signal });
    const at: ChatTableKey = { table, key: { [partitionKey]: { S: str(inputs.sessionId) ?? ctx.sessionId } } };
    // The item as read before the run: the write measures it against DynamoDB's 400 KB item limit.
    let item: Promise<Awaited<ReturnType<typeof loadChatItem>>> | undefined;
    const itemOf = () => (item ??= loadChatItem(client, at));
    // The request's history first, as Flowise prepends it.
    const read = async () => {
      const stored = chatMessagesOf(await itemOf())
        .filter((m) => ROLES[m.type])
        .map((m): ChatTurn => ({ role: ROLES[m.type], content: m.text }));
      return [...ctx.history, ...stored];
    };
    return memoryInstance(node.data.label, str(inputs.memoryKey) ?? "chat_history", read, async (question, answer) =>
      appendChatMessages(
        client,
        at,
        [
          { type: "human", text: question },
          { type: "ai", text: answer },
        ],
        await itemOf(),
      ),
    );
  },
};

async function kendraOf(args: BuildArgs) {
  const { node, inputs } = args;
  const label = labelOf(args);
  const indexId = str(inputs.indexId);
  if (!indexId) throw fail("INVALID_FLOW", `${label} needs its Kendra Index ID (indexId)`);
  // Kendra refuses any other (ValidationException on every call): an index ID is 36 characters (a UUID).
  if (!/^[a-zA-Z0-9][a-zA-Z0-9-]{35}$/.test(indexId))
    throw fail("INVALID_FLOW", `${label} Kendra Index ID must be the index's 36-character ID, got ${indexId}`);
  const config = providerConfig(node, inputs);
  const deps = depsOf(args);
  const credentials = await awsCredentials(config, deps, label);
  return {
    indexId,
    label,
    client: awsClient(AWS_SERVICES.kendra, regionOf(config, label), credentials, deps.env, { signal: deps.signal }),
  };
}

/** The documents of a `document` input (loaders give lists; a `text` output is one document). */
const documentsOf = (value: unknown): Document[] =>
  asList(value)
    .flat(3)
    .map((v) => (typeof v === "string" ? new Document({ pageContent: v }) : (v as Document)))
    .filter((d) => typeof d?.pageContent === "string" && d.pageContent.trim() !== "");

const kendra: NodeDefinition = {
  name: "kendra",
  category: "Vector Stores",
  async build(args) {
    const { indexId, label, client } = await kendraOf(args);
    const topK = Math.floor(positive(args.inputs.topK, 10));
    const filter = filterOf(args.inputs.attributeFilter, label, '{"EqualsTo": {"Key": "k", "Value": {"StringValue": "v"}}}');
    return new NodeRetriever((query) => kendraSearch(client, indexId, query, topK, filter), topK);
  },
  async upsert(args): Promise<UpsertCounts> {
    const { indexId, label, client } = await kendraOf(args);
    const docs = documentsOf(args.inputs.document);
    if (!docs.length)
      throw fail("NODE_FAILED", `${label}: nothing to upsert — the loaders connected to its document input gave no documents`);
    const now = Date.parse(args.ctx.runtime.clock.now());
    const title = (d: Document, i: number) => String(d.metadata?.title || d.metadata?.source || `Document ${i + 1}`);
    await kendraPut(
      client,
      indexId,
      docs.map((d, i) => ({ id: `doc_${now}_${i}`, title: title(d, i), text: d.pageContent })),
    );
    const addedDocs = docs.map((d) => ({ pageContent: d.pageContent, metadata: d.metadata ?? {} }));
    return { numAdded: docs.length, numUpdated: 0, numSkipped: 0, numDeleted: 0, addedDocs };
  },
};

vectorStoreNames.add(kendra.name);

export const awsNodes: NodeDefinition[] = [kbRetriever, dynamoMemory, kendra];
