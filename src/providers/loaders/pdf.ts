// PDF text through unpdf (pdf.js built for workers), loaded only when a PDF is read: it is the
// largest dependency and most requests never need it. `usage`: perPage (default) or perFile.
// A page tree node with more kids than PDF_MAX_PAGES allows is refused before pdf.js opens the
// file (pdf-page-tree.ts); pdf.js then reads it a piece per turn of the event loop (pdf-paced.ts),
// so opening a large document does not hold the isolate; the page count is checked against
// PDF_MAX_PAGES before any page is read; pages are then read a few at a time between yields, and
// the document is destroyed after.
import { Document } from "@langchain/core/documents";
import { ApiError, fail } from "../../errors";
import { overLimit } from "../../lib/limits";
import { openPaced, readPages } from "./pdf-paced";
import { largestPageTreeNode } from "./pdf-page-tree";
import { assertHasText, assertNotEmpty, extensionOf } from "./text-util";
import type { LoaderDefinition } from "./types";
import { errorMessage } from "../../lib/error-message";

export const pdfLoader: LoaderDefinition = {
  name: "pdfFile",
  label: "Pdf File",
  fileField: "pdfFile",
  accepts: (f) => extensionOf(f.name) === "pdf" || f.mime.toLowerCase() === "application/pdf",
  async load({ files, config, limits }) {
    if (!files.length) throw fail("INVALID_INPUT", "pdfFile needs a file: upload one in `files` or give it in the loader config");
    const usage = config.usage === "perFile" ? "perFile" : "perPage";
    const docs: Document[] = [];
    for (const f of files) {
      assertNotEmpty(f);
      const kids = await largestPageTreeNode(f.bytes);
      if (kids > limits.pdfPages) throw overLimit(limits, "pdfPages", `PDF ${f.name}`, `at least ${kids}`);
      let pages: string[];
      let totalPages: number;
      try {
        const pdf = await openPaced(f.bytes);
        try {
          totalPages = pdf.numPages;
          if (totalPages > limits.pdfPages) throw overLimit(limits, "pdfPages", `PDF ${f.name}`, totalPages);
          pages = await readPages(pdf);
        } finally {
          await pdf.loadingTask.destroy().catch(() => undefined);
        }
      } catch (err) {
        if (err instanceof ApiError) throw err;
        throw fail("INVALID_INPUT", `File ${f.name} is not a readable PDF: ${errorMessage(err)}`);
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
