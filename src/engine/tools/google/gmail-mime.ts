// The RFC 2822 message the Gmail tools send as `raw` (base64url, unpadded), built as Flowise's
// createMimeMessage builds it: To, Cc, Bcc, Subject, MIME-Version, Content-Type text/html UTF-8 and
// the body base64-encoded. Two departures make it a valid message whatever the model writes: a
// subject with non-ASCII characters is an RFC 2047 encoded-word (`=?UTF-8?B?…?=`; Flowise puts the raw
// UTF-8 bytes in the header), the body's base64 is cut into 76-character lines (RFC 2045), and CR/LF
// in a header value become spaces (a model cannot add headers). An ASCII subject is written as it is.
import { toBase64 } from "../../../lib/crypto";

const utf8 = new TextEncoder();

/** Bytes as base64url without padding (Gmail's `raw`). */
export const base64Url = (bytes: Uint8Array): string => toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** A header value on one line. */
const oneLine = (value: string): string => value.replace(/[\r\n]+/g, " ");

/** RFC 2047 B encoded-words of at most 75 characters each, never splitting a character. */
export function encodeHeaderWord(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value)) return value;
  const words: string[] = [];
  let chunk = "";
  // 45 bytes of UTF-8 → 60 base64 characters, + 12 for =?UTF-8?B??= : 72 ≤ 75.
  for (const char of value) {
    if (utf8.encode(chunk + char).length > 45) {
      words.push(chunk);
      chunk = "";
    }
    chunk += char;
  }
  if (chunk) words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${toBase64(utf8.encode(w))}?=`).join("\r\n ");
}

export interface MailParts {
  to?: string;
  subject?: string;
  body?: string;
  cc?: string;
  bcc?: string;
}

/** The message as Gmail's `raw`. */
export function mimeMessage({ to, subject, body, cc, bcc }: MailParts): string {
  let message = `To: ${oneLine(to ?? "")}\r\n`;
  if (cc) message += `Cc: ${oneLine(cc)}\r\n`;
  if (bcc) message += `Bcc: ${oneLine(bcc)}\r\n`;
  if (subject) message += `Subject: ${encodeHeaderWord(oneLine(subject))}\r\n`;
  message += "MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n";
  if (body) message += (toBase64(utf8.encode(body)).match(/.{1,76}/g) ?? []).join("\r\n");
  return base64Url(utf8.encode(message));
}
