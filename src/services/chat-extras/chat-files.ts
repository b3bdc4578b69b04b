// Files of a chat, kept in R2 under `<chatflowid>/<chatId>/<name>` — the keys prediction stores its
// uploads under (services/runs/uploads.ts), so a file sent with a message and one attached before
// it are served the same way. GET /get-upload-file reads one; POST /attachments/{flowId}/{chatId}
// takes files into the chat under the chatflow's full-file-upload rules (chatbotConfig
// .fullFileUpload: on/off, allowed types, PDF usage) and answers the text our loaders read from
// each, which the chat then sends as `file:full` uploads.
import type { Deps } from "../deps";
import { badRequest, notFound, payloadTooLarge, unsupportedMediaType } from "../../errors";
import { maxUploadBytes } from "../../env";
import { workLimits } from "../../lib/limits";
import { loadDocuments, loaderDefinition, loaderForFile } from "../../providers/loaders/registry";
import { extensionOf } from "../../providers/loaders/text-util";
import { storeUploads } from "../runs";

/**
 * One segment of an R2 key: never a path of its own. A `/` or `\` would reach another chat's (or
 * the chatflow's upsert) files, `.` and `..` mean nothing to R2 but everything to a reader.
 */
export function assertKeySegment(value: string, what: string, max: number): void {
  if (!value) throw badRequest(`${what} is required`);
  if (value.length > max) throw badRequest(`${what} is longer than ${max} characters`);
  if (/[/\\\p{Cc}]/u.test(value) || value === "." || value === "..")
    throw badRequest(`${what} may not contain /, \\ or control characters, nor be . or ..`);
}

/** A file stored for a chat (404 when there is none by that name). */
export async function readChatFile(files: R2Bucket, chatflowId: string, chatId: string, fileName: string): Promise<R2ObjectBody> {
  assertKeySegment(chatId, "chatId", 1000);
  assertKeySegment(fileName, "fileName", 255);
  const object = await files.get(`${chatflowId}/${chatId}/${fileName}`);
  if (!object) throw notFound(`File ${fileName} not found in chat ${chatId}`);
  return object;
}

/** The types Flowise's Full File Upload settings offer, with the extensions each may carry. */
const EXTENSIONS: Record<string, string[]> = {
  "text/css": ["css"],
  "text/csv": ["csv"],
  "text/html": ["html", "htm"],
  "application/json": ["json"],
  "text/markdown": ["md", "markdown"],
  "application/x-yaml": ["yaml", "yml"],
  "application/pdf": ["pdf"],
  "application/sql": ["sql"],
  "text/plain": ["txt"],
  "application/xml": ["xml"],
  "application/msword": ["doc"],
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ["docx"],
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ["xlsx"],
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": ["pptx"],
};

interface FullFileUpload {
  enabled: boolean;
  allowed: string[];
  pdfUsage: "perPage" | "perFile";
}

function fullFileUploadOf(chatbotConfig: string | null): FullFileUpload {
  let config: Record<string, unknown> = {};
  try {
    const parsed = chatbotConfig ? JSON.parse(chatbotConfig) : {};
    if (parsed && typeof parsed === "object") config = parsed;
  } catch {
    // an unreadable chatbotConfig enables nothing
  }
  const full = (config.fullFileUpload ?? {}) as { status?: unknown; allowedUploadFileTypes?: unknown; pdfFile?: { usage?: unknown } };
  const allowed = typeof full.allowedUploadFileTypes === "string" ? full.allowedUploadFileTypes.split(",") : [];
  return {
    enabled: full.status === true,
    allowed: allowed.map((t) => t.trim().toLowerCase()).filter(Boolean),
    pdfUsage: full.pdfFile?.usage === "perFile" ? "perFile" : "perPage",
  };
}

export interface AttachmentFile {
  name: string;
  mime: string;
  bytes: Uint8Array;
}

export interface Attachment {
  name: string;
  mimeType: string;
  size: number;
  content: string;
}

/** The file's loader, after the chatflow's rules: 413 too large, 415 a type not allowed, not its extension's, or unreadable. */
function checkFile(file: AttachmentFile, rules: FullFileUpload, maxBytes: number): string {
  if (file.bytes.byteLength > maxBytes)
    throw payloadTooLarge(`File ${file.name} is larger than the upload limit of ${Math.round(maxBytes / 1024 / 1024)} MB (MAX_UPLOAD_MB)`);
  if (!rules.allowed.includes(file.mime))
    throw unsupportedMediaType(
      `File type '${file.mime || "(none)"}' of ${file.name} is not allowed. Allowed types: ${rules.allowed.join(", ") || "none"}`,
    );
  const extensions = EXTENSIONS[file.mime];
  if (!extensions) throw unsupportedMediaType(`File type '${file.mime}' of ${file.name} is not one a chat can attach`);
  if (!extensions.includes(extensionOf(file.name)))
    throw unsupportedMediaType(`File ${file.name} does not have the extension of its type ${file.mime} (.${extensions.join(", .")})`);
  const loader = loaderForFile(file.name);
  if (!loaderDefinition(loader).accepts?.({ name: file.name, mime: file.mime }))
    throw unsupportedMediaType(`Files of type ${file.mime} (${file.name}) cannot be read into text here`);
  return loader;
}

/**
 * Reads each file's text (or, with `base64`, its bytes as base64), then stores the files for the
 * chat: nothing is stored unless every file passed its checks and was read.
 */
export async function createAttachments(
  deps: Deps<"env" | "files">,
  flow: { id: string; chatbotConfig: string | null },
  chatId: string,
  files: AttachmentFile[],
  options: { base64: boolean },
): Promise<Attachment[]> {
  assertKeySegment(chatId, "chatId", 1000);
  const rules = fullFileUploadOf(flow.chatbotConfig);
  if (!rules.enabled) throw badRequest("File upload is not enabled for this chatflow (chatbotConfig.fullFileUpload.status)");
  if (!files.length) throw badRequest("No files: send them as multipart/form-data fields named `files`");
  const maxBytes = maxUploadBytes(deps.env);
  const normalized = files.map((f) => ({ ...f, mime: f.mime.split(";")[0].trim().toLowerCase() }));
  const loaders = normalized.map((f) => checkFile(f, rules, maxBytes));
  const limits = workLimits(deps.env);
  const out: Attachment[] = [];
  for (const [i, file] of normalized.entries()) {
    let content: string;
    if (options.base64) content = btoa(Array.from(file.bytes, (b) => String.fromCharCode(b)).join(""));
    else {
      const docs = await loadDocuments(loaders[i], {
        config: { usage: rules.pdfUsage },
        files: [file],
        outbound: { OUTBOUND_ALLOW: deps.env.OUTBOUND_ALLOW },
        maxBytes,
        limits,
      });
      content = docs.map((d) => d.pageContent).join("\n");
    }
    out.push({ name: file.name, mimeType: file.mime, size: file.bytes.byteLength, content });
  }
  await storeUploads(
    deps.files,
    flow.id,
    chatId,
    normalized.map((f) => ({ type: "file", name: f.name, mime: f.mime, bytes: f.bytes })),
  );
  return out;
}
