// Files of document store loaders in R2, under docustore/<storeId>/<loaderId>/<name> (Flowise's
// folder name), so a loader's or a store's files go with one prefix delete.
import { badRequest } from "../../errors";
import type { LoaderFile } from "../../providers/loaders/types";
import { nowIso } from "../../lib/time";
import { newId } from "../../lib/ids";
import type { LoaderFileEntry } from "./types";

const ROOT = "docustore";

export const fileKey = (storeId: string, loaderId: string, name: string) => `${ROOT}/${storeId}/${loaderId}/${name}`;

/** A file name safe as the last part of a key: no path, no control characters. */
export function safeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop()?.replace(/[\u0000-\u001f\u007f]/g, "").trim() ?? "";
  return base && base !== "." && base !== ".." ? base.slice(0, 200) : "file";
}

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

/** `data:<mime>;base64,<data>,filename:<name>` (Flowise's file inputs in JSON) → a file. */
export function decodeFlowiseDataUri(value: string): LoaderFile {
  const m = value.match(/^data:([^;,]*)(?:;[^,]*)?;base64,([A-Za-z0-9+/=\s]*)(?:,filename:(.+))?$/);
  if (!m) throw badRequest("A file input must be a data URI: data:<mime>;base64,<data>,filename:<name>");
  let binary: string;
  try {
    binary = atob(m[2].replace(/\s/g, ""));
  } catch {
    throw badRequest("A file input's base64 data is malformed");
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return { name: safeFileName(m[3] ?? "file"), mime: m[1] || "application/octet-stream", bytes };
}
