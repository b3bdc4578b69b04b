// What the Office (XLSX, PPTX) and EPUB loaders share: a zip archive read part by part within the
// DOCX limits (DOCX_MAX_ENTRIES entries; DOCX_MAX_UNZIPPED_MB inflated across all parts read, so a
// zip bomb stops at the limit, zip.ts), and small scanners for their XML: elements by name,
// attributes, text — linear patterns only (no nesting, no backtracking over attacker-sized input).
import { decodeXML } from "entities/decode";
import { ApiError, fail } from "../../../errors";
import { type WorkLimits, megabytes, overLimit } from "../../../lib/limits";
import { errorMessage } from "../../../lib/error-message";
import type { LoaderFile } from "../types";
import { type ZipLimits, readZipText, zipEntryNames } from "../zip";

export class Archive {
  private left: number;
  private names?: string[];

  constructor(
    private readonly file: LoaderFile,
    private readonly limits: WorkLimits,
    /** How messages name the kind: "XLSX", "PPTX", "EPUB". */
    private readonly kind: string,
  ) {
    this.left = megabytes(limits.docxUnzippedMb);
  }

  private zipLimits(): ZipLimits {
    const { limits, kind, file } = this;
    return {
      maxEntries: limits.docxEntries,
      maxBytes: this.left,
      tooManyEntries: (count) => overLimit(limits, "docxEntries", `${kind} ${file.name}`, count),
      tooLarge: () => overLimit(limits, "docxUnzippedMb", `${kind} ${file.name}`),
    };
  }

  private async guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof ApiError && err.status !== 400) throw err;
      throw fail("INVALID_INPUT", `File ${this.file.name} is not a readable ${this.kind} (zip): ${errorMessage(err)}`);
    }
  }

  /** The archive's entry names. */
  async entries(): Promise<string[]> {
    this.names ??= await this.guarded(() => zipEntryNames(this.file.bytes, this.zipLimits()));
    return this.names;
  }

  /** One part's text (undefined when absent); what it inflates to counts against the archive's budget. */
  async text(name: string): Promise<string | undefined> {
    const text = await this.guarded(() => readZipText(this.file.bytes, name, this.zipLimits()));
    if (text !== undefined) this.left -= new TextEncoder().encode(text).length;
    return text;
  }

  /** A part that must be there (400 naming it otherwise). */
  async required(name: string): Promise<string> {
    const text = await this.text(name);
    if (text === undefined) throw fail("INVALID_INPUT", `File ${this.file.name} is not a ${this.kind}: ${name} is missing`);
    return text;
  }
}

/** Each `<tag …>…</tag>` or `<tag …/>` of xml: its attributes' text and its inner XML ("" when self-closed). */
export function* elements(xml: string, tag: string): Generator<{ attrs: string; inner: string }> {
  const open = `<${tag}`;
  const close = `</${tag}>`;
  for (let at = xml.indexOf(open); at >= 0; at = xml.indexOf(open, at + open.length)) {
    const c = xml[at + open.length];
    if (c !== ">" && c !== "/" && c !== " " && c !== "\t" && c !== "\n" && c !== "\r") continue;
    const end = xml.indexOf(">", at);
    if (end < 0) return;
    const selfClosed = xml[end - 1] === "/";
    const attrs = xml.slice(at + open.length, selfClosed ? end - 1 : end);
    if (selfClosed) {
      yield { attrs, inner: "" };
      continue;
    }
    const stop = xml.indexOf(close, end);
    if (stop < 0) return;
    yield { attrs, inner: xml.slice(end + 1, stop) };
    at = stop;
  }
}

/** An attribute's decoded value from an element's attribute text (`name="v"` or `name='v'`). */
export function attr(attrs: string, name: string): string | undefined {
  for (let at = attrs.indexOf(name); at >= 0; at = attrs.indexOf(name, at + 1)) {
    const before = attrs[at - 1];
    if (before !== undefined && before !== " " && before !== "\t" && before !== "\n" && before !== "\r") continue;
    let p = at + name.length;
    while (attrs[p] === " ") p++;
    if (attrs[p] !== "=") continue;
    p++;
    while (attrs[p] === " ") p++;
    const q = attrs[p];
    if (q !== '"' && q !== "'") continue;
    const end = attrs.indexOf(q, p + 1);
    if (end < 0) return undefined;
    return decodeXML(attrs.slice(p + 1, end));
  }
  return undefined;
}

/** The decoded text of every `<tag>` in xml, joined. */
export const texts = (xml: string, tag: string): string => [...elements(xml, tag)].map((e) => decodeXML(e.inner)).join("");

/** Relationship targets by id (a part's `_rels/*.rels`), resolved against the part's folder. */
export function relationships(rels: string | undefined, folder: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const { attrs } of elements(rels ?? "", "Relationship")) {
    const id = attr(attrs, "Id");
    const target = attr(attrs, "Target");
    if (id && target) out.set(id, resolvePath(folder, target));
  }
  return out;
}

/** `target` relative to `folder` (zip paths: no leading slash, `..` and `.` resolved). */
export function resolvePath(folder: string, target: string): string {
  const parts = target.startsWith("/") ? [] : folder.split("/").filter(Boolean);
  for (const seg of target.split("/")) {
    if (!seg || seg === ".") continue;
    if (seg === "..") parts.pop();
    else parts.push(seg);
  }
  return parts.join("/");
}
