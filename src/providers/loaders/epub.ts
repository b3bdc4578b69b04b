// epubFile: an EPUB (a zip: META-INF/container.xml names the OPF package, whose spine orders the
// XHTML chapters) read as LangChain's EPubLoader reads it: each spine chapter's text (HTMLRewriter,
// web.ts), titled from the NCX table of contents when it names the chapter. `usage` perChapter
// (default): a document per chapter, metadata {source, chapter}; perFile: one per book, chapters
// joined by a blank line. Within the DOCX zip limits (office/archive.ts); chapters count as documents.
import { Document } from "@langchain/core/documents";
import { fail } from "../../errors";
import { overLimit } from "../../lib/limits";
import { Archive, attr, elements, resolvePath, texts } from "./office/archive";
import { assertNotEmpty, extensionOf, needFiles } from "./text-util";
import type { LoaderDefinition, LoaderFile, LoaderInput } from "./types";
import { htmlToText } from "./web";

const folderOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf("/")));
const withoutFragment = (href: string) => {
  const hash = href.indexOf("#");
  return decodeURIComponent(hash >= 0 ? href.slice(0, hash) : href);
};

/** Chapter titles by part path, from the NCX's navPoints (the first navPoint naming a part wins). */
function ncxTitles(ncx: string | undefined, folder: string): Map<string, string> {
  const titles = new Map<string, string>();
  for (const point of ncx ? ncx.split("<navPoint").slice(1) : []) {
    const label = [...elements(point, "navLabel")][0];
    const content = [...elements(point, "content")][0];
    const src = content && attr(content.attrs, "src");
    const title = label ? texts(label.inner, "text").trim() : "";
    if (src && title) {
      const part = resolvePath(folder, withoutFragment(src));
      if (!titles.has(part)) titles.set(part, title);
    }
  }
  return titles;
}

interface Chapter {
  text: string;
  title?: string;
}

async function chapters(file: LoaderFile, input: LoaderInput): Promise<Chapter[]> {
  assertNotEmpty(file);
  const zip = new Archive(file, input.limits, "EPUB");
  const container = await zip.required("META-INF/container.xml");
  const rootfile = [...elements(container, "rootfile")][0];
  const opfPath = rootfile && attr(rootfile.attrs, "full-path");
  if (!opfPath) throw fail("INVALID_INPUT", `File ${file.name} is not an EPUB: its container names no package`);
  const opf = await zip.required(opfPath);
  const folder = folderOf(opfPath);
  const manifest = new Map<string, { href: string; type: string }>();
  for (const item of elements(opf, "item")) {
    const id = attr(item.attrs, "id");
    const href = attr(item.attrs, "href");
    if (id && href) manifest.set(id, { href: resolvePath(folder, withoutFragment(href)), type: attr(item.attrs, "media-type") ?? "" });
  }
  const spine = [...elements(opf, "spine")][0];
  const tocId = spine ? attr(spine.attrs, "toc") : undefined;
  const ncxPath = tocId ? manifest.get(tocId)?.href : undefined;
  const titles = ncxTitles(ncxPath ? await zip.text(ncxPath) : undefined, ncxPath ? folderOf(ncxPath) : folder);
  const refs = spine ? [...elements(spine.inner, "itemref")] : [];
  if (refs.length > input.limits.chunks) throw overLimit(input.limits, "chunks", `EPUB ${file.name}`, refs.length);
  const out: Chapter[] = [];
  for (const ref of refs) {
    const item = manifest.get(attr(ref.attrs, "idref") ?? "");
    if (!item || !/html|xml/i.test(item.type)) continue;
    const html = await zip.text(item.href);
    if (!html) continue;
    const { text } = await htmlToText(html.replace(/^<\?xml[^>]*>/, ""));
    out.push({ text, title: titles.get(item.href) });
  }
  return out;
}

export const epubLoader: LoaderDefinition = {
  name: "epubFile",
  label: "Epub File",
  fileField: "epubFile",
  accepts: (f) => extensionOf(f.name) === "epub" || f.mime.toLowerCase() === "application/epub+zip",
  async load(input) {
    needFiles(input.files, "epubFile");
    const perFile = input.config.usage === "perFile";
    const docs: Document[] = [];
    for (const f of input.files) {
      const parts = await chapters(f, input);
      if (perFile) {
        const text = parts.map((c) => c.text).join("\n\n");
        if (text.trim()) docs.push(new Document({ pageContent: text, metadata: { source: f.name } }));
        continue;
      }
      for (const c of parts)
        if (c.text.trim())
          docs.push(new Document({ pageContent: c.text, metadata: { source: f.name, ...(c.title ? { chapter: c.title } : {}) } }));
    }
    if (!docs.length) throw fail("INVALID_INPUT", `No text found in ${input.files.map((f) => f.name).join(", ")}`);
    return docs;
  },
};
