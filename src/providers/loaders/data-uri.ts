// Files as Flowise's JSON carries them (data URIs with a filename), and file names made safe as
// the last part of a storage key. Used by document store upserts and the chatflow loader nodes.
import { fail } from "../../errors";
import type { LoaderFile } from "./types";

/** A file name safe as the last part of a key: no path, no control characters. */
export function safeFileName(name: string): string {
  const base =
    name
      .split(/[\\/]/)
      .pop()
      ?.replace(/[\u0000-\u001f\u007f]/g, "")
      .trim() ?? "";
  return base && base !== "." && base !== ".." ? base.slice(0, 200) : "file";
}

/** `data:<mime>;base64,<data>,filename:<name>` (Flowise's file inputs in JSON) → a file. */
export function decodeFlowiseDataUri(value: string): LoaderFile {
  const m = value.match(/^data:([^;,]*)(?:;[^,]*)?;base64,([A-Za-z0-9+/=\s]*)(?:,filename:(.+))?$/);
  if (!m) throw fail("INVALID_INPUT", "A file input must be a data URI: data:<mime>;base64,<data>,filename:<name>");
  let binary: string;
  try {
    binary = atob(m[2].replace(/\s/g, ""));
  } catch {
    throw fail("INVALID_INPUT", "A file input's base64 data is malformed");
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return { name: safeFileName(m[3] ?? "file"), mime: m[1] || "application/octet-stream", bytes };
}
