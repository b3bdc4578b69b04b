// Files of document store loaders in R2, under docustore/<storeId>/<loaderId>/<name> (Flowise's
// folder name), so a loader's or a store's files go with one prefix delete.
import { badRequest } from "../../errors";
import type { LoaderFile } from "../../providers/loaders/types";
import { nowIso } from "../../lib/time";
import { newId } from "../../lib/ids";
import type { LoaderFileEntry } from "./types";

// Shared with the chatflow loader nodes, so they live with the loaders.
export { decodeFlowiseDataUri, safeFileName } from "../../providers/loaders/data-uri";

const ROOT = "docustore";

export const fileKey = (storeId: string, loaderId: string, name: string) => `${ROOT}/${storeId}/${loaderId}/${name}`;

export async function putLoaderFiles(bucket: R2Bucket, storeId: string, loaderId: string, files: LoaderFile[]): Promise<LoaderFileEntry[]> {
  const entries: LoaderFileEntry[] = [];
  for (const f of files) {
    await bucket.put(fileKey(storeId, loaderId, f.name), f.bytes, { httpMetadata: { contentType: f.mime || "application/octet-stream" } });
    entries.push({ id: newId(), name: f.name, mimePrefix: f.mime || "application/octet-stream", size: f.bytes.length, status: "NEW", uploaded: nowIso() });
  }
  return entries;
}

export async function readLoaderFiles(bucket: R2Bucket, storeId: string, loaderId: string, entries: LoaderFileEntry[]): Promise<LoaderFile[]> {
  const out: LoaderFile[] = [];
  for (const e of entries) {
    const obj = await bucket.get(fileKey(storeId, loaderId, e.name));
    if (!obj) throw badRequest(`File ${e.name} of loader ${loaderId} is no longer in storage: upload it again`);
    out.push({ name: e.name, mime: e.mimePrefix, bytes: new Uint8Array(await obj.arrayBuffer()) });
  }
  return out;
}

async function deletePrefix(bucket: R2Bucket, prefix: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const listed = await bucket.list({ prefix, cursor });
    if (listed.objects.length) await bucket.delete(listed.objects.map((o) => o.key));
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
}

export const deleteLoaderFiles = (bucket: R2Bucket, storeId: string, loaderId: string) => deletePrefix(bucket, `${ROOT}/${storeId}/${loaderId}/`);
export const deleteStoreFiles = (bucket: R2Bucket, storeId: string) => deletePrefix(bucket, `${ROOT}/${storeId}/`);
