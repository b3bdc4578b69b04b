// Flowise's AWS tools (credential awsApi, region default us-east-1; calls in providers/aws/services.ts):
//   awsSNS  aws_sns_publish: the model's text published to topicArn; answers the MessageId, or
//           "Failed to publish message to SNS: …" (Flowise's text) for the model to read
//   awsDynamoDBKVStorage  one of two tools by `operation`: dynamodb_kv_store {key, value} (PutItem,
//           one item per version: pk = [keyPrefix#]key, sk = epoch ms) or dynamodb_kv_retrieve
//           {key, nthLatest} (Query newest first) → {"value", "timestamp"}; the table needs pk and sk
// A failing call is an error the agent reads ("Error: …"), never holding the secret.
import { DynamicStructuredTool, DynamicTool } from "@langchain/core/tools";
import { z } from "zod";
import { ApiError, fail } from "../../errors";
import { AWS_SERVICES, type AwsService, awsClient } from "../../providers/aws/client";
import { awsCredentials, regionOf } from "../../providers/aws/config";
import { kvRetrieve, kvStore, snsPublish } from "../../providers/aws/services";
import { RunAborted } from "../../lib/run-control";
import { str } from "../core/inputs";
import { ToolCallError } from "./service";
import type { ToolDeps } from "./types";
import { utf8Length } from "../../lib/utf8";

const KEY_SEPARATOR = "#";
/** DynamoDB's partition key limit: 2,048 bytes of UTF-8 (Flowise counted characters; "é" is 2 bytes). */
const MAX_KEY_BYTES = 2048;

async function clientOf(service: AwsService, inputs: Record<string, unknown>, { ctx, label }: ToolDeps) {
  const deps = { env: ctx.runtime.providers, getCredential: ctx.getCredential };
  const region = regionOf(inputs, label);
  return awsClient(service, region, await awsCredentials(inputs, deps, label), deps.env, { signal: ctx.signal });
}

/** What a failed call tells the model: the service's message (ApiError's), not a 502 of the run. */
const readable = (prefix: string, err: unknown): Error => {
  if (err instanceof RunAborted || (err instanceof ApiError && err.code === "ABORTED")) return err as Error;
  return new ToolCallError(`${prefix}: ${err instanceof Error ? err.message : String(err)}`);
};

export async function awsSnsTool(inputs: Record<string, unknown>, deps: ToolDeps): Promise<DynamicTool> {
  const topicArn = str(inputs.topicArn);
  if (!topicArn || topicArn === "placeholder") throw fail("INVALID_FLOW", `${deps.label} needs its SNS Topic (topicArn)`);
  const client = await clientOf(AWS_SERVICES.sns, inputs, deps);
  return new DynamicTool({
    name: "aws_sns_publish",
    description: "Publishes a message to an AWS SNS topic",
    func: async (message: string) => {
      try {
        return `Successfully published message to SNS topic. MessageId: ${await snsPublish(client, topicArn, message)}`;
      } catch (err) {
        const e = readable("Failed to publish message to SNS", err);
        if (e instanceof ToolCallError) return e.message;
        throw e;
      }
    },
  });
}

function fullKeyOf(key: string, prefix: string): string {
  if (!key.trim()) throw new ToolCallError("Key must be a non-empty string");
  const full = prefix ? `${prefix}${KEY_SEPARATOR}${key}` : key;
  const bytes = utf8Length(full);
  if (bytes > MAX_KEY_BYTES) throw new ToolCallError(`Key too long. Maximum length is ${MAX_KEY_BYTES} bytes (UTF-8), got ${bytes}`);
  return full;
}

export async function awsDynamoDbKvTool(inputs: Record<string, unknown>, deps: ToolDeps): Promise<DynamicStructuredTool> {
  const table = str(inputs.tableName);
  if (!table || table === "error") throw fail("INVALID_FLOW", `${deps.label} needs a DynamoDB Table (tableName) with keys pk and sk`);
  const prefix = str(inputs.keyPrefix) ?? "";
  if (prefix.includes(KEY_SEPARATOR)) throw fail("INVALID_FLOW", `${deps.label} Key Prefix cannot contain "${KEY_SEPARATOR}"`);
  const operation = str(inputs.operation) ?? "store";
  if (operation !== "store" && operation !== "retrieve")
    throw fail("INVALID_FLOW", `${deps.label} operation must be store or retrieve (got ${operation})`);
  const client = await clientOf(AWS_SERVICES.dynamodb, inputs, deps);
  if (operation === "store")
    return new DynamicStructuredTool({
      name: "dynamodb_kv_store",
      description: 'Store a text value with a key in DynamoDB. Input must be an object with "key" and "value" properties.',
      schema: z.object({
        key: z.string().min(1).describe("The key to store the value under"),
        value: z.string().describe("The text value to store"),
      }),
      func: async ({ key, value }) => {
        try {
          const at = await kvStore(client, table, fullKeyOf(key, prefix), value, new Date(deps.ctx.runtime.clock.now()));
          return `Successfully stored value with key "${key}" at ${at}`;
        } catch (err) {
          throw readable("Failed to store value", err);
        }
      },
    });
  return new DynamicStructuredTool({
    name: "dynamodb_kv_retrieve",
    description:
      "Retrieve a value by key from DynamoDB. Returns JSON with value and timestamp. " +
      "Specify which version to get (1=latest, 2=2nd latest, etc).",
    schema: z.object({
      key: z.string().min(1).describe("The key to retrieve the value for"),
      nthLatest: z
        .string()
        .regex(/^\d+$/, "Must be a positive number")
        .describe(
          'Which version to retrieve: "1" for latest, "2" for 2nd latest, "3" for 3rd latest, etc. Use "1" to get the most recent value.',
        )
        .optional()
        .default("1"),
    }),
    func: async ({ key, nthLatest }) => {
      try {
        const nth = Number.parseInt(nthLatest ?? "1", 10);
        if (!Number.isFinite(nth) || nth < 1) throw new ToolCallError("nthLatest must be a positive number (1 or greater)");
        return JSON.stringify(await kvRetrieve(client, table, fullKeyOf(key, prefix), nth));
      } catch (err) {
        throw readable("Failed to retrieve value", err);
      }
    },
  });
}
