// Splitting without holding the isolate. LangChain's splitters are async but compute in one go:
// a 5 MB text of long lines takes seconds of microtasks, during which no other request is served.
// They await their length function once per piece, so a length function that sometimes goes back
// to the event loop paces them without changing a single chunk. splitWithin also splits document
// by document, yielding every few documents (the length function paces the work inside each), and
// stops at the chunk limit.
import type { Document } from "@langchain/core/documents";
import type { TextSplitter } from "@langchain/textsplitters";
import { type WorkLimits, overLimit } from "../../lib/limits";
import { Pacer } from "../../lib/pace";

/**
 * Documents split between yields at most: a yield costs about as much as splitting a short page
 * (5,000 one-page documents spent 2 s of 14 in yields when it came after each one).
 */
const DOCS_PER_SLICE = 64;

/** A splitter length function (characters) that yields to the event loop every so often. */
export function pacedLength(): (text: string) => Promise<number> {
  const pacer = new Pacer();
  return async (text: string) => {
    const wait = pacer.tick();
    if (wait) await wait;
    return text.length;
  };
}

/** Splits each document in turn; over MAX_CHUNKS_PER_UPSERT chunks is a 413 naming `subject`. */
export async function splitWithin(splitter: TextSplitter, docs: Document[], limits: WorkLimits, subject: string): Promise<Document[]> {
  const out: Document[] = [];
  const pacer = new Pacer(DOCS_PER_SLICE);
  for (const doc of docs) {
    for (const chunk of await splitter.splitDocuments([doc])) out.push(chunk);
    if (out.length > limits.chunks) throw overLimit(limits, "chunks", subject);
    await pacer.tick();
  }
  return out;
}
