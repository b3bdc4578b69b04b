// PDF text through unpdf (pdf.js built for workers), loaded only when a PDF is read: it is the
// largest dependency and most requests never need it. `usage`: perPage (default) or perFile.
// The page count is checked against PDF_MAX_PAGES before any page is read; pages are then read
// one at a time, yielding between them, and the document is destroyed after.
import { Document } from "@langchain/core/documents";
import { ApiError, badRequest } from "../../errors";
import { overLimit } from "../../lib/limits";
import { yieldToEventLoop } from "../../lib/pace";
import { assertHasText, assertNotEmpty, extensionOf } from "./text-util";
import type { LoaderDefinition } from "./types";
import { errorMessage } from "../../lib/error-message";

interface PdfPage {
  getTextContent(): Promise<{ items: Array<{ str?: string; hasEOL?: boolean }> }>;
  cleanup(): unknown;
}

/** A page's text as unpdf's extractText makes it: items joined, a newline after each end of line. */
async function pageText(page: PdfPage): Promise<string> {
  const content = await page.getTextContent();
  page.cleanup();
  return content.items
    .filter((item) => item.str != null)
    .map((item) => item.str + (item.hasEOL ? "\n" : ""))
    .join("");
}

export const pdfLoader: LoaderDefinition = {
  name: "pdfFile",
  label: "Pdf File",
  fileField: "pdfFile",
  accepts: (f) => extensionOf(f.name) === "pdf" || f.mime.toLowerCase() === "application/pdf",
  async load({ files, config, limits }) {
    if (!files.length) throw badRequest("pdfFile needs a file: upload one in `files` or give it in the loader config");
    const usage = config.usage === "perFile" ? "perFile" : "perPage";
    const { getDocumentProxy } = await import("unpdf");
    const docs: Document[] = [];
    for (const f of files) {
      assertNotEmpty(f);
      const pages: string[] = [];
      let totalPages: number;
      try {
        // pdf.js takes ownership of the buffer it is given: hand it a copy.
        const pdf = await getDocumentProxy(new Uint8Array(f.bytes));
        try {
          totalPages = pdf.numPages;
          if (totalPages > limits.pdfPages) throw overLimit(limits, "pdfPages", `PDF ${f.name}`, totalPages);
          for (let i = 1; i <= totalPages; i++) {
            pages.push(await pageText((await pdf.getPage(i)) as unknown as PdfPage));
            await yieldToEventLoop();
          }
        } finally {
          await pdf.loadingTask.destroy().catch(() => undefined);
        }
      } catch (err) {
        if (err instanceof ApiError) throw err;
        throw badRequest(`File ${f.name} is not a readable PDF: ${errorMessage(err)}`);
      }
      assertHasText(pages, `PDF ${f.name} (it may hold only images)`);
      if (usage === "perFile") {
        docs.push(
          new Document({ pageContent: pages.filter((p) => p.trim()).join("\n\n"), metadata: { source: f.name, pdf: { totalPages } } }),
        );
      } else {
        pages.forEach((text, i) => {
          if (text.trim())
            docs.push(new Document({ pageContent: text, metadata: { source: f.name, pdf: { totalPages }, loc: { pageNumber: i + 1 } } }));
        });
      }
    }
    return docs;
  },
};
