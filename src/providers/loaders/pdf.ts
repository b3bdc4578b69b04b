// PDF text through unpdf (pdf.js built for workers), loaded only when a PDF is read: it is the
// largest dependency and most requests never need it. `usage`: perPage (default) or perFile.
import { Document } from "@langchain/core/documents";
import { badRequest } from "../../errors";
import { assertHasText, assertNotEmpty, extensionOf } from "./text-util";
import type { LoaderDefinition } from "./types";

export const pdfLoader: LoaderDefinition = {
  name: "pdfFile",
  label: "Pdf File",
  fileField: "pdfFile",
  accepts: (f) => extensionOf(f.name) === "pdf" || f.mime.toLowerCase() === "application/pdf",
  async load({ files, config }) {
    if (!files.length) throw badRequest("pdfFile needs a file: upload one in `files` or give it in the loader config");
    const usage = config.usage === "perFile" ? "perFile" : "perPage";
    const { extractText, getDocumentProxy } = await import("unpdf");
    const docs: Document[] = [];
    for (const f of files) {
      assertNotEmpty(f);
      let pages: string[];
      let totalPages: number;
      try {
        // pdf.js takes ownership of the buffer it is given: hand it a copy.
        const pdf = await getDocumentProxy(new Uint8Array(f.bytes));
        ({ totalPages, text: pages } = await extractText(pdf, { mergePages: false }));
      } catch (err) {
        throw badRequest(`File ${f.name} is not a readable PDF: ${err instanceof Error ? err.message : String(err)}`);
      }
      assertHasText(pages, `PDF ${f.name} (it may hold only images)`);
      if (usage === "perFile") {
        docs.push(new Document({ pageContent: pages.filter((p) => p.trim()).join("\n\n"), metadata: { source: f.name, pdf: { totalPages } } }));
      } else {
        pages.forEach((text, i) => {
          if (text.trim()) docs.push(new Document({ pageContent: text, metadata: { source: f.name, pdf: { totalPages }, loc: { pageNumber: i + 1 } } }));
        });
      }
    }
    return docs;
  },
};
