// Files attached to a chat in full (Flowise's `fullFileUpload`): the chat sends each file to
// POST /attachments/{flowId}/{chatId} (read by our loaders and stored under the chat's keys), then
// its text with the question as an upload `{type: "file:full", name, data: <text>}`. As Flowise
// does, the model gets `<doc name='…'>text</doc>` before the question (an agentflow as its file
// text, `{{ file_attachment }}`), the stored question stays the one asked, and the message records
// the upload as `stored-file:full` without its text.

/** What these read of an upload (services/runs/uploads.ts UploadInput; not imported: uploads.ts imports this file). */
interface AttachedUpload {
  type: string;
  name: string;
  data?: string;
}

/** A full-file upload carrying its text (a data: URI is a file's bytes, stored as any other upload). */
export const isAttachedText = (upload: AttachedUpload): boolean =>
  upload.type === "file:full" && typeof upload.data === "string" && !upload.data.startsWith("data:");

/** The attached files' text as the model reads it, or "" when there is none. */
export function attachedText(uploads: AttachedUpload[]): string {
  return uploads
    .filter(isAttachedText)
    .map((u) => `<doc name='${u.name}'>${u.data}</doc>\n\n`)
    .join("");
}

/** The question as the model reads it: the attached files first (Flowise's order). */
export const withAttachedText = (question: string, uploads: AttachedUpload[]): string => {
  const files = attachedText(uploads);
  return files ? `${files}\n\n${question}` : question;
};
