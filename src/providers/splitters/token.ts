// LangChain's TokenTextSplitter fetches its BPE ranks from the network at first use; workerd runs
// here offline. This one reads the ranks js-tiktoken ships, from the worker's static assets (they
// are ~735 KB gzip, two fifths of what the bundle would otherwise weigh; scripts/lib/assets.mjs
// writes them), once per isolate, and splits the same way.
import { TextSplitter, type TextSplitterParams } from "@langchain/textsplitters";
import type { Tiktoken } from "js-tiktoken/lite";
import { fail } from "../../errors";
import { readAsset } from "../../lib/assets";
import { Pacer, yieldToEventLoop } from "../../lib/pace";

/** The encodings whose ranks scripts/lib/assets.mjs ships (TIKTOKEN_ENCODINGS there). */
const ENCODINGS = new Set(["gpt2", "cl100k_base"]);

const supportedEncodings = (): string[] => [...ENCODINGS];

const cache = new Map<string, Promise<Tiktoken>>();

/** The BPE tokenizer of an encoding, read once per isolate (also counts tokens where a provider reported none). */
export async function tokenizer(encoding: string): Promise<Tiktoken> {
  if (!ENCODINGS.has(encoding))
    throw fail(
      "INVALID_FLOW",
      `tokenTextSplitter encodingName "${encoding}" is not available here. Supported: ${supportedEncodings().join(", ")}`,
    );
  let found = cache.get(encoding);
  if (!found) {
    found = Promise.all([readAsset(`tiktoken/${encoding}.json`).then((res) => res.json()), import("js-tiktoken/lite")]).then(
      ([ranks, lite]) => new lite.Tiktoken(ranks as never),
    );
    cache.set(encoding, found);
    found.catch(() => cache.delete(encoding)); // a failed read is tried again next time
  }
  return found;
}

export class LocalTokenTextSplitter extends TextSplitter {
  readonly encodingName: string;

  static lc_name() {
    return "LocalTokenTextSplitter";
  }

  constructor(fields: Partial<TextSplitterParams> & { encodingName?: string }) {
    super(fields);
    this.encodingName = fields.encodingName ?? "gpt2";
    if (!ENCODINGS.has(this.encodingName))
      throw fail(
        "INVALID_FLOW",
        `tokenTextSplitter encodingName "${this.encodingName}" is not available here. Supported: ${supportedEncodings().join(", ")}`,
      );
  }

  async splitText(text: string): Promise<string[]> {
    const tk = await tokenizer(this.encodingName);
    // Encoded a segment at a time, yielding between: one encode of megabytes would hold the isolate.
    const ids: number[] = [];
    for (const segment of segments(text)) {
      for (const id of tk.encode(segment, [], [])) ids.push(id);
      await yieldToEventLoop();
    }
    const pacer = new Pacer(200);
    const splits: string[] = [];
    let start = 0;
    while (start < ids.length) {
      if (start > 0) start -= this.chunkOverlap;
      const end = Math.min(start + this.chunkSize, ids.length);
      splits.push(tk.decode(ids.slice(start, end)));
      start = end;
      await pacer.tick();
    }
    return splits;
  }
}

const SEGMENT = 64 * 1024;
const isSpace = (c: string | undefined) => c === undefined || /\s/.test(c);

/**
 * The text in pieces of about SEGMENT characters, each cut just before a space that starts a word
 * (" word"): both encodings' pre-tokenizers end a token there, so the pieces encode to exactly the
 * tokens of the whole. Text with no such space in the second half of a piece is cut where it is.
 */
function segments(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  while (text.length - from > SEGMENT) {
    let cut = from + SEGMENT;
    while (cut > from + SEGMENT / 2 && !(text[cut] === " " && !isSpace(text[cut - 1]) && !isSpace(text[cut + 1]))) cut--;
    if (cut <= from + SEGMENT / 2) {
      cut = from + SEGMENT;
      const c = text.charCodeAt(cut);
      if (c >= 0xdc00 && c <= 0xdfff) cut--; // never between the halves of a surrogate pair
    }
    out.push(text.slice(from, cut));
    from = cut;
  }
  out.push(text.slice(from));
  return out;
}
