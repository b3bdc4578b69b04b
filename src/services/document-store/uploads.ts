// A multipart upsert body read as it arrives: its fields kept (small), each file streamed to R2
// as it comes — in parts of R2_PART bytes, through a multipart upload when it is larger — under
// docustore/<storeId>/<uploadId>/, where a new loader of the store keeps it (the loader takes the
// upload's id). So no file is ever whole in memory; what is too large is refused (413) as soon as
// it passes every limit, with what was staged removed.
import { maxBodyBytes, maxUploadBytes, type Env } from "../../env";
import { payloadTooLarge } from "../../errors";
import { newId } from "../../lib/ids";
import { yieldToEventLoop } from "../../lib/pace";
import { megabytes, workLimits } from "../../lib/limits";
import { type PartHead, boundaryOf, readParts } from "../../lib/multipart-stream";
import { deleteStagedFiles, fileKey, safeFileName } from "./files";
import type { SourceFile } from "./types";
import type { Deps } from "../deps";

/** Bytes per R2 upload part: R2's smallest (every part but the last is this size). */
export const R2_PART = 5 * 1024 * 1024;

export interface ReceivedForm {
  /** The text fields (the first value of each). */
  fields: Record<string, string>;
  /** The files of the `files` field, staged in R2. */
  files: SourceFile[];
  /** What they were staged under. */
  uploadId: string;
}

/**
 * The largest file an upsert takes: text and JSON Lines files (read in windows) up to
 * MAX_STREAMED_FILE_MB, others up to MAX_UPLOAD_MB. A request carries at most that plus its fields.
 */
export function largestUpload(env: Env): number {
  return Math.max(maxUploadBytes(env), megabytes(workLimits(env).streamedFileMb));
}

function tooLarge(env: Env, name: string) {
  const limits = workLimits(env);
  return payloadTooLarge(
    `File ${name} is larger than every upload limit: ${limits.streamedFileMb} MB for text and JSON Lines files (MAX_STREAMED_FILE_MB), ` +
      `${Math.round(maxUploadBytes(env) / 1024 / 1024)} MB for other files (MAX_UPLOAD_MB)`,
  );
}

/** Writes a file to R2 as its pieces arrive: one put when it fits in a part, else a multipart upload. */
class R2Writer {
  private part = new Uint8Array(R2_PART);
  private used = 0;
  private upload: R2MultipartUpload | undefined;
  private readonly parts: R2UploadedPart[] = [];
  size = 0;

  constructor(
    private readonly bucket: R2Bucket,
    private readonly key: string,
    private readonly type: string,
  ) {}

  async write(piece: Uint8Array): Promise<void> {
    this.size += piece.length;
    for (let at = 0; at < piece.length; ) {
      const n = Math.min(piece.length - at, R2_PART - this.used);
      this.part.set(piece.subarray(at, at + n), this.used);
      this.used += n;
      at += n;
      if (this.used === R2_PART) await this.flush();
    }
  }

  private async flush(): Promise<void> {
    this.upload ??= await this.bucket.createMultipartUpload(this.key, { httpMetadata: { contentType: this.type } });
    this.parts.push(await this.upload.uploadPart(this.parts.length + 1, this.part.subarray(0, this.used)));
    this.used = 0;
    await yieldToEventLoop();
  }

  async close(): Promise<void> {
    if (!this.upload) {
      await this.bucket.put(this.key, this.part.subarray(0, this.used), { httpMetadata: { contentType: this.type } });
    } else {
      if (this.used) await this.flush();
      await this.upload.complete(this.parts);
    }
    this.part = new Uint8Array(0);
  }

  async abort(): Promise<void> {
    await this.upload?.abort().catch(() => undefined);
    this.part = new Uint8Array(0);
  }
}

/**
 * Reads a multipart/form-data upsert body: fields up to MAX_BODY_MB each, files (field `files` or
 * `files[]`) staged in R2 under a new upload id of `storeId`. A failure removes what was staged.
 */
export async function receiveForm(
  { env, files: bucket }: Deps<"env" | "files">,
  storeId: string,
  body: ReadableStream<Uint8Array> | null,
  contentType: string,
): Promise<ReceivedForm> {
  const uploadId = newId();
  const fields: Record<string, string> = {};
  const files: SourceFile[] = [];
  const maxFile = largestUpload(env);
  const maxField = maxBodyBytes(env);
  const onPart = async (head: PartHead, read: () => Promise<Uint8Array | undefined>) => {
    if (head.filename === undefined) {
      const decoder = new TextDecoder();
      let text = "";
      for (let piece; (piece = await read()); ) {
        text += decoder.decode(piece, { stream: true });
        if (text.length > maxField)
          throw payloadTooLarge(
            `Form field ${head.name} is larger than the limit of ${Math.round(maxField / 1024 / 1024)} MB (MAX_BODY_MB)`,
          );
      }
      text += decoder.decode();
      if (!(head.name in fields)) fields[head.name] = text;
      return;
    }
    if (head.name !== "files" && head.name !== "files[]") return; // other file fields are not read (as before)
    const name = safeFileName(head.filename || "file");
    const mime = head.type || "application/octet-stream";
    const key = fileKey(storeId, uploadId, name);
    const writer = new R2Writer(bucket, key, mime);
    try {
      for (let piece; (piece = await read()); ) {
        if (writer.size + piece.length > maxFile) throw tooLarge(env, name);
        await writer.write(piece);
      }
      await writer.close();
    } catch (err) {
      await writer.abort();
      throw err;
    }
    // A second file of the same name replaced the first in R2: one file, as before.
    const same = files.findIndex((f) => f.name === name);
    if (same >= 0) files.splice(same, 1);
    files.push({ name, mime, size: writer.size, key });
  };
  try {
    if (!body) return { fields, files, uploadId };
    await readParts(body, boundaryOf(contentType), onPart);
    return { fields, files, uploadId };
  } catch (err) {
    await deleteStagedFiles(bucket, storeId, uploadId).catch(() => undefined);
    throw err;
  }
}

/** Removes what a multipart body staged (its upsert was refused before it ran). */
export const discardUpload = ({ files }: Deps<"files">, storeId: string, uploadId: string) =>
  deleteStagedFiles(files, storeId, uploadId).catch(() => undefined);
