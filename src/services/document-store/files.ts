// Files of document store loaders in R2, under docustore/<storeId>/<loaderId>/<name> (Flowise's
// folder name), so a loader's or a store's files go with one prefix delete. A multipart upload is
// staged under docustore/<storeId>/<uploadId>/ as it arrives (uploads.ts): a new loader takes the
// upload's id and keeps its files where they are; otherwise they are copied, as streams.
import { badRequest } from "../../errors";
import type { LoaderFile } from "../../providers/loaders/types";
import { nowIso } from "../../lib/time";
import { newId } from "../../lib/ids";
import type { LoaderFileEntry, SourceFile } from "./types";

// Shared with the chatflow loader nodes, so they live with the loaders.
export { decodeFlowiseDataUri, safeFileName } from "../../providers/loaders/data-uri";

const ROOT = "docustore";

export const fileKey = (storeId: string, loaderId: string, name: string) => `${ROOT}/${storeId}/${loaderId}/${name}`;

/** The listing of a file put under a loader now. */
const newEntry = (f: { name: string; mime: string; size: number }): LoaderFileEntry => ({
  id: newId(),
  name: f.name,
  mimePrefix: f.mime || "application/octet-stream",
  size: f.size,
  status: "NEW",
  uploaded: nowIso(),
});

/** Copies an R2 object as a stream (a file of any size, never whole in memory). */
async function copyObject(bucket: R2Bucket, from: string, to: string, mime: string, name: string): Promise<void> {
  const src = await bucket.get(from);
  if (!src) throw badRequest(`File ${name} is no longer in storage: upload it again`);
  const sized = new FixedLengthStream(src.size);
  await Promise.all([
    src.body.pipeTo(sized.writable),
    bucket.put(to, sized.readable, { httpMetadata: { contentType: mime || "application/octet-stream" } }),
  ]);
}

/**
 * Puts a loader's files under its prefix (copied from where an upload was staged or another
 * loader keeps them, or written from memory) and lists them. Files already there stay; a loader
 * given other files than its own loses its old ones first.
 */
export async function placeLoaderFiles(
  bucket: R2Bucket,
  storeId: string,
  loaderId: string,
  files: SourceFile[],
  replaces: boolean,
): Promise<LoaderFileEntry[]> {
  const inPlace = (f: SourceFile) => f.key === fileKey(storeId, loaderId, f.name);
  if (replaces && !files.some(inPlace)) await deleteLoaderFiles(bucket, storeId, loaderId);
  const entries: LoaderFileEntry[] = [];
  for (const f of files) {
    if (inPlace(f)) {
      entries.push(f.entry ?? newEntry(f));
      continue;
    }
    const key = fileKey(storeId, loaderId, f.name);
    if (f.key) await copyObject(bucket, f.key, key, f.mime, f.name);
    else await bucket.put(key, f.bytes ?? new Uint8Array(0), { httpMetadata: { contentType: f.mime || "application/octet-stream" } });
    entries.push(newEntry(f));
  }
  return entries;
}

/** The files' bytes, whole: for loaders that read whole files (their size was checked against MAX_UPLOAD_MB). */
export async function readWholeFiles(bucket: R2Bucket, files: SourceFile[]): Promise<LoaderFile[]> {
  const out: LoaderFile[] = [];
  for (const f of files) {
    let bytes = f.bytes;
    if (!bytes && f.key) {
      const obj = await bucket.get(f.key);
      if (!obj) throw badRequest(`File ${f.name} is no longer in storage: upload it again`);
      bytes = new Uint8Array(await obj.arrayBuffer());
    }
    out.push({ name: f.name, mime: f.mime, bytes: bytes ?? new Uint8Array(0) });
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

export const deleteLoaderFiles = (bucket: R2Bucket, storeId: string, loaderId: string) =>
  deletePrefix(bucket, `${ROOT}/${storeId}/${loaderId}/`);
export const deleteStoreFiles = (bucket: R2Bucket, storeId: string) => deletePrefix(bucket, `${ROOT}/${storeId}/`);

/** Files a multipart upsert staged under upload `uploadId` of a store (see uploads.ts). */
export const deleteStagedFiles = (bucket: R2Bucket, storeId: string, uploadId: string) => deleteLoaderFiles(bucket, storeId, uploadId);
