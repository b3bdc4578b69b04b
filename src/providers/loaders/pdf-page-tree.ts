// A look at a PDF's raw bytes before pdf.js opens it. pdf.js's first page look-up reads every kid
// of the page tree's root in one go, before the page count can be checked: a flat tree of tens of
// thousands of pages held the isolate for seconds however the file was fed to it. Each node of
// the tree holds at least one page, so a node with more kids than the page limit allows is
// refused here, at the cost of one scan of the file. Arrays inside compressed object streams are
// not seen; pdf.js reads those a stream at a time (pdf-paced.ts), so they do not stall it alike.
import { yieldToEventLoop } from "../../lib/pace";

/** Bytes scanned between yields. */
const SLICE_BYTES = 1024 * 1024;
const SLASH = 0x2f;
const OPEN = 0x5b; // [
const CLOSE = 0x5d; // ]
const R = 0x52;
const KIDS = [0x4b, 0x69, 0x64, 0x73]; // Kids

const isWhite = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09 || b === 0x0c || b === 0x00;
const isDelimiter = (b: number | undefined) =>
  b === undefined || isWhite(b) || b === SLASH || b === OPEN || b === CLOSE || b === 0x3c || b === 0x3e || b === 0x28 || b === 0x25;

/** Whether `/Kids` starts at `at` (a whole name, not the start of a longer one). */
function kidsAt(bytes: Uint8Array, at: number): boolean {
  for (let i = 0; i < KIDS.length; i++) if (bytes[at + 1 + i] !== KIDS[i]) return false;
  return isDelimiter(bytes[at + 1 + KIDS.length]);
}

/**
 * The most references (`n g R`) any `/Kids [...]` array written out in the file holds: at least
 * that many pages (0 when none is seen). The scan yields every megabyte.
 */
export async function largestPageTreeNode(bytes: Uint8Array): Promise<number> {
  let largest = 0;
  let yieldedAt = 0;
  for (let at = bytes.indexOf(SLASH); at >= 0; at = bytes.indexOf(SLASH, at + 1)) {
    if (at - yieldedAt >= SLICE_BYTES) {
      await yieldToEventLoop();
      yieldedAt = at;
    }
    if (!kidsAt(bytes, at)) continue;
    let p = at + 1 + KIDS.length;
    while (p < bytes.length && isWhite(bytes[p])) p++;
    if (bytes[p] !== OPEN) continue; // an indirect array: pdf.js fetches it piece by piece
    let refs = 0;
    for (p++; p < bytes.length && bytes[p] !== CLOSE; p++) {
      if (bytes[p] === R && isWhite(bytes[p - 1]) && isDelimiter(bytes[p + 1])) refs++;
      if (p - yieldedAt >= SLICE_BYTES) {
        await yieldToEventLoop();
        yieldedAt = p;
      }
    }
    largest = Math.max(largest, refs);
    at = p;
  }
  return largest;
}
