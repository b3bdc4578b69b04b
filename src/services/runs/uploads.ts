import type { RunUpload } from "../../engine";
import { badRequest } from "../../errors";
import { isAttachedText } from "./attached-files";

export interface UploadInput {
  type: string;
  name: string;
  data?: string;
  mime?: string;
  /** Multipart files arrive as bytes rather than a data: URI. */
  bytes?: Uint8Array;
}

export interface StoredUpload {
  type: string;
  name: string;
  mime: string;
  url?: string;
}

// Parameters may come before ;base64: a browser's recording reads as data:audio/webm;codecs=opus;base64,….
const DATA_URI = /^data:([^;,]*)(?:;[^;,=]+=[^;,]*)*(;base64)?,(.*)$/s;
const safeName = (name: string) => name.replace(/[^\w.\- ]+/g, "_").slice(0, 200) || "file";

/**
 * Data-URI uploads go to R2 under `<chatflowid>/<chatId>/<name>` and are recorded without their
 * data (type `stored-file`); `url` uploads pass through as they are.
 */
export async function storeUploads(files: R2Bucket, chatflowid: string, chatId: string, uploads: UploadInput[]): Promise<StoredUpload[]> {
  const out: StoredUpload[] = [];
  for (const upload of uploads) {
    if (upload.type === "url") {
      out.push({ type: "url", name: upload.name, mime: upload.mime ?? "", url: upload.data });
      continue;
    }
    // Its file was stored by POST /attachments; the message records it without its text.
    if (isAttachedText(upload)) {
      out.push({ type: "stored-file:full", name: safeName(upload.name), mime: upload.mime ?? "" });
      continue;
    }
    const { bytes, mime } = upload.bytes ? { bytes: upload.bytes, mime: upload.mime ?? "" } : decodeDataUri(upload);
    const name = safeName(upload.name);
    const type = upload.mime || mime || "application/octet-stream";
    await files.put(`${chatflowid}/${chatId}/${name}`, bytes, { httpMetadata: { contentType: type } });
    out.push({ type: "stored-file", name, mime: type });
  }
  return out;
}

/**
 * Uploads as the engine takes them (a chat model shown images: engine/core/images.ts): data: URIs
 * (multipart files re-encoded) or URLs; attached text files are the question's text, not uploads.
 */
export function runUploads(uploads: UploadInput[]): RunUpload[] | undefined {
  const files = uploads.filter((u) => !isAttachedText(u));
  if (!files.length) return undefined;
  return files.map((u) => {
    if (u.type === "url" || !u.bytes) return { type: u.type, name: u.name, mime: u.mime ?? "", data: u.data };
    let binary = "";
    for (let i = 0; i < u.bytes.length; i += 0x8000) binary += String.fromCharCode(...u.bytes.subarray(i, i + 0x8000));
    return { type: u.type, name: u.name, mime: u.mime ?? "", data: `data:${u.mime || "application/octet-stream"};base64,${btoa(binary)}` };
  });
}

/** Removes uploads that storeUploads put (best effort: a failure here must not hide the run's own error). */
export async function removeUploads(
  files: R2Bucket,
  chatflowid: string,
  chatId: string,
  stored: StoredUpload[] | undefined,
): Promise<void> {
  const keys = (stored ?? []).filter((u) => u.type === "stored-file").map((u) => `${chatflowid}/${chatId}/${u.name}`);
  if (keys.length) await files.delete(keys).catch(() => undefined);
}

/** Bytes and media type of a data: URI upload; 400 when it is not one. */
export function decodeDataUri(upload: UploadInput): { bytes: Uint8Array; mime: string } {
  const match = upload.data ? DATA_URI.exec(upload.data) : null;
  if (!match) throw badRequest(`uploads: ${upload.name} must carry its data as a data: URI`);
  const [, given, base64, payload] = match;
  // A data URI without a type (or a generic one) says less than the upload's own `mime`: keep that.
  const mime = given && given !== "application/octet-stream" ? given : upload.mime || given;
  try {
    const bytes = base64 ? Uint8Array.from(atob(payload), (ch) => ch.charCodeAt(0)) : new TextEncoder().encode(decodeURIComponent(payload));
    return { bytes, mime };
  } catch {
    throw badRequest(`uploads: ${upload.name} has malformed data`);
  }
}
