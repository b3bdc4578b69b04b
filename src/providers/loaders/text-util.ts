import { badRequest } from "../../errors";
import type { LoaderFile } from "./types";

export const extensionOf = (name: string): string => {
  const dot = name.lastIndexOf(".");
  return dot >= 0 ? name.slice(dot + 1).toLowerCase() : "";
};

export function assertNotEmpty(file: LoaderFile): void {
  if (file.bytes.length === 0) throw badRequest(`File ${file.name} is empty`);
}

/** UTF-8 text of a file (a BOM dropped); a file that is plainly binary is refused. */
export function decodeText(file: LoaderFile): string {
  assertNotEmpty(file);
  const sample = file.bytes.subarray(0, 8192);
  let nul = 0;
  for (const b of sample) if (b === 0) nul++;
  if (nul > 0) throw badRequest(`File ${file.name} is not a text file`);
  return new TextDecoder("utf-8").decode(file.bytes).replace(/^\uFEFF/, "");
}

export function assertHasText(texts: string[], what: string): void {
  if (!texts.some((t) => t.trim().length > 0)) throw badRequest(`No text found in ${what}`);
}
