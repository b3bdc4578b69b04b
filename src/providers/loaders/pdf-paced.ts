// pdf.js opened with a whole file parses what it needs in one go: its first page look-up reads
// every page object of a flat page tree, which held the isolate for 0.3-1.4 s on a 5,000-page PDF
// (and grows with the page count, before the page limit can be checked; pdf-page-tree.ts refuses
// the largest such trees before pdf.js starts). Handed the file through a range transport instead,
// pdf.js asks for the pieces it needs as it needs them and waits for each; answering one piece per
// turn of the event loop cuts the parse into slices of about one piece's work. Pages are then
// read a few at a time between yields (readPages).
import type { PDFDocumentProxy } from "unpdf/pdfjs";
import { Pacer, yieldToEventLoop } from "../../lib/pace";

/** Bytes pdf.js receives per turn of the event loop: parsing a piece this size takes a few ms. */
const PIECE = 16 * 1024;
/**
 * Pages read between yields at most, when ~20 ms have not passed first (on Cloudflare the clock
 * stands still while code runs: see lib/pace.ts). A short page costs pdf.js 1-3 ms here; a page
 * weighs one more for each ITEMS_PER_PAGE text items it holds.
 */
const PAGES_PER_SLICE = 8;
const ITEMS_PER_PAGE = 200;

interface PdfPage {
  getTextContent(): Promise<{ items: Array<{ str?: string; hasEOL?: boolean }> }>;
  cleanup(): unknown;
}

/**
 * Opens a PDF for reading a piece per turn of the event loop. The document must be destroyed by
 * the caller (`pdf.loadingTask.destroy()`); pieces asked for after that are dropped.
 */
export async function openPaced(bytes: Uint8Array): Promise<PDFDocumentProxy> {
  const { getResolvedPDFJS } = await import("unpdf");
  const pdfjs = await getResolvedPDFJS();

  class PacedTransport extends pdfjs.PDFDataRangeTransport {
    private readonly asked: Array<[number, number]> = [];
    private pumping = false;
    private aborted = false;

    override requestDataRange(begin: number, end: number): void {
      this.asked.push([begin, end]);
      if (!this.pumping) void this.pump();
    }

    override abort(): void {
      this.aborted = true;
      this.asked.length = 0;
    }

    /** One range per turn: pdf.js parses what it was given before the next turn hands it more. */
    private async pump(): Promise<void> {
      this.pumping = true;
      try {
        for (let next = this.asked.shift(); next && !this.aborted; next = this.asked.shift()) {
          await yieldToEventLoop();
          if (this.aborted) break;
          // pdf.js takes ownership of what it is given: a copy.
          this.onDataRange(next[0], bytes.slice(next[0], next[1]));
        }
      } finally {
        this.pumping = false;
      }
    }
  }

  const task = pdfjs.getDocument({
    range: new PacedTransport(bytes.length, null),
    rangeChunkSize: PIECE,
    // Only the pieces asked for, never the rest of the file in the background.
    disableAutoFetch: true,
    disableStream: true,
    useSystemFonts: true,
  });
  return task.promise;
}

/** Every page's text in order, yielding every few pages or ~20 ms (a page's work is pdf.js's, in one go). */
export async function readPages(pdf: PDFDocumentProxy): Promise<string[]> {
  const pages: string[] = [];
  const pacer = new Pacer(PAGES_PER_SLICE);
  for (let i = 1; i <= pdf.numPages; i++) {
    const page = (await pdf.getPage(i)) as unknown as PdfPage;
    const { items } = await page.getTextContent();
    page.cleanup();
    // As unpdf's extractText makes it: items joined, a newline after each end of line.
    pages.push(
      items
        .filter((item) => item.str != null)
        .map((item) => item.str + (item.hasEOL ? "\n" : ""))
        .join(""),
    );
    await pacer.tick(1 + Math.floor(items.length / ITEMS_PER_PAGE));
  }
  return pages;
}
