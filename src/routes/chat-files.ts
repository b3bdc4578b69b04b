// A chat's files: GET /get-upload-file streams one stored for a chat (images and files the chat
// shows), POST /attachments/{chatflowId}/{chatId} takes files into a chat and answers their text.
// Both follow the run rule of the chatflow (auth/prediction-access.ts): open for a public one, else
// its bearer (or the studio's session) — never weaker than asking the chatflow itself. Rules and
// storage live in services/chat-extras/chat-files.ts.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { optionalAuth } from "../auth/bearer";
import { filePrincipal } from "../auth/file-access";
import { assertMayRun, assertOriginAllowed } from "../auth/prediction-access";
import type { AppEnv } from "../env";
import { badRequest, unsupportedMediaType } from "../errors";
import { clientIpOf, enforceRateLimit } from "../rate-limit/check";
import { text, uuid } from "../schemas/common";
import { findConversationOwner } from "../services/chatflows";
import { assertPrincipalMayRun } from "../services/callers/run-access";
import { type AttachmentFile, createAttachments, readChatFile } from "../services/chat-extras/chat-files";
import { readJsonOrForm } from "./request-body";
import { OPTIONAL_BEARER, createRouter, jsonResponse, multipartWithFiles, publicRoute } from "./router";

const tags = ["chat files"];

/** Attachments carry files: they get the upload limit (MAX_UPLOAD_MB) as a whole body, as vector upserts do. */
export const isAttachmentUpload = (method: string, path: string) => method === "POST" && /\/attachments\/[^/]+\/[^/]+\/?$/.test(path);

/** Types a browser may show in place (no script can run in them); anything else is downloaded. */
const INLINE = /^(image\/(png|jpeg|gif|webp|avif)|audio\/[\w.+-]+|video\/[\w.+-]+|application\/pdf|text\/plain)$/;

function disposition(kind: "inline" | "attachment", name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

const FileQuery = z.object({
  chatflowId: uuid(),
  chatId: text(1000),
  fileName: text(255),
  download: z.enum(["true", "false"]).optional().openapi({ description: "true: always as a download (Content-Disposition: attachment)" }),
});

const Attachment = z
  .object({ name: z.string(), mimeType: z.string(), size: z.number().int(), content: z.string() })
  .openapi("ChatAttachment", {
    description: "A file taken into the chat, with the text read from it (base64 of its bytes with base64=true)",
  });

export const chatFileRoutes = createRouter()
  .openapi(
    publicRoute({
      method: "get",
      path: "/get-upload-file",
      tags,
      middleware: [optionalAuth],
      security: OPTIONAL_BEARER,
      summary: "A file stored for a chat (uploads, attachments), streamed",
      description:
        "Whoever may run the chatflow: anyone for a public one, else its bearer; the studio's session also from its own " +
        "pages' <img> and links (Sec-Fetch-Site: same-origin). Images, audio, video, PDF and plain text are shown in place, " +
        "other types downloaded; every answer is sandboxed (CSP) and never sniffed.",
      request: { query: FileQuery },
      responses: { 200: { description: "The file's bytes", content: { "application/octet-stream": { schema: z.string() } } } },
    }),
    async (c) => {
      const { chatflowId, chatId, fileName, download } = c.req.valid("query");
      const owner = await findConversationOwner(c.var.services, chatflowId);
      assertPrincipalMayRun(await filePrincipal(c), owner);
      assertOriginAllowed(owner.chatbotConfig, c.req.header("origin"));
      const object = await readChatFile(c.var.services.files, owner.id, chatId, fileName);
      const type = (object.httpMetadata?.contentType || "application/octet-stream").toLowerCase();
      const inline = download !== "true" && INLINE.test(type.split(";")[0].trim());
      return new Response(object.body, {
        status: 200,
        headers: {
          "content-type": type,
          "content-length": String(object.size),
          "content-disposition": disposition(inline ? "inline" : "attachment", fileName),
          "x-content-type-options": "nosniff",
          "content-security-policy": "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; sandbox",
          "cache-control": "private, max-age=300",
        },
      });
    },
  )
  .openapi(
    publicRoute({
      method: "post",
      path: "/attachments/{chatflowId}/{chatId}",
      tags,
      middleware: [optionalAuth],
      security: OPTIONAL_BEARER,
      summary: "Take files into a chat: each stored for the chat and answered with the text read from it",
      description:
        "Whoever may run the chatflow. Needs chatbotConfig.fullFileUpload.status true; each file's type must be in its " +
        "allowedUploadFileTypes and match its extension (415), and be at most MAX_UPLOAD_MB (413). Form field base64=true " +
        "answers the bytes as base64 instead of text. apiConfig.rateLimit applies (429), counted apart from predictions.",
      request: {
        params: z.object({ chatflowId: uuid(), chatId: text(1000) }),
        body: {
          required: true,
          content: {
            "multipart/form-data": { schema: multipartWithFiles({ base64: { description: "true: content is base64" } }) as never },
          },
        },
      },
      responses: jsonResponse(z.array(Attachment)),
    }),
    async (c) => {
      const { chatflowId, chatId } = c.req.valid("param");
      const owner = await findConversationOwner(c.var.services, chatflowId);
      await assertMayRun(c, owner);
      assertOriginAllowed(owner.chatbotConfig, c.req.header("origin"));
      // Anyone may attach to a public chatflow: its rate limit counts attachments too (apart from its questions).
      await enforceRateLimit(c.env, owner.id, owner.apiConfig, clientIpOf(c.req.raw.headers, c.env), "attachments");
      const { files, base64 } = await readFiles(c);
      return c.json(await createAttachments(c.var.services, owner, chatId, files, { base64 }), 200);
    },
  );

async function readFiles(c: Context<AppEnv>): Promise<{ files: AttachmentFile[]; base64: boolean }> {
  const body = await readJsonOrForm(c);
  if (body.kind !== "form") throw unsupportedMediaType("Send the files as multipart/form-data (fields named `files`)");
  if (body.fields.base64 !== undefined && !["true", "false"].includes(body.fields.base64)) throw badRequest("base64 must be true or false");
  const files: AttachmentFile[] = [];
  for (const f of body.files) files.push({ name: f.name, mime: f.type, bytes: new Uint8Array(await f.arrayBuffer()) });
  return { files, base64: body.fields.base64 === "true" };
}
