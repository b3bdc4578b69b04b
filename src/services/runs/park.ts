// A detached run's inputs too large for its Workflow's params, parked in R2 when it is accepted and
// read back by the Workflow: the request's files, and the webhook payload that fired it. Under the
// execution's prefix, so deleting the execution removes them (services/files.ts).
import type { WebhookPayload } from "../../engine/agentflow/types";
import { executionFilesPrefix } from "../files";
import type { UploadInput } from "./uploads";

const uploadsKeyOf = (executionId: string) => `${executionFilesPrefix(executionId)}uploads.json`;
const webhookKeyOf = (executionId: string) => `${executionFilesPrefix(executionId)}webhook.json`;

/** Files as JSON (bytes base64), for the Workflow to read back; answers their key (none without files). */
export async function parkUploads(files: R2Bucket, executionId: string, uploads: UploadInput[]): Promise<string | undefined> {
  if (!uploads.length) return undefined;
  const key = uploadsKeyOf(executionId);
  const json = uploads.map((u) => ({
    ...u,
    bytes: u.bytes ? btoa(Array.from(u.bytes, (b) => String.fromCharCode(b)).join("")) : undefined,
  }));
  await files.put(key, JSON.stringify(json));
  return key;
}

/** The files parkUploads kept (none when the key is gone). */
export async function unparkUploads(files: R2Bucket, key: string | undefined): Promise<UploadInput[]> {
  if (!key) return [];
  const object = await files.get(key);
  if (!object) return [];
  const parked = (await object.json()) as (Omit<UploadInput, "bytes"> & { bytes?: string })[];
  return parked.map((u) => ({ ...u, bytes: u.bytes ? Uint8Array.from(atob(u.bytes), (c) => c.charCodeAt(0)) : undefined }));
}

/** The webhook payload as JSON; answers its key (none without a webhook). */
export async function parkWebhook(files: R2Bucket, executionId: string, webhook: WebhookPayload | undefined): Promise<string | undefined> {
  if (!webhook) return undefined;
  const key = webhookKeyOf(executionId);
  await files.put(key, JSON.stringify(webhook));
  return key;
}

/** The webhook payload parkWebhook kept (none when the key is gone). */
export async function unparkWebhook(files: R2Bucket, key: string | undefined): Promise<WebhookPayload | undefined> {
  if (!key) return undefined;
  const object = await files.get(key);
  return object ? ((await object.json()) as WebhookPayload) : undefined;
}
