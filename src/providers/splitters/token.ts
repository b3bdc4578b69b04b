// LangChain's TokenTextSplitter fetches its BPE ranks from the network at first use; workerd runs
// here offline. This one loads the ranks js-tiktoken ships (behind a dynamic import: they are
// large and only this splitter needs them) and splits the same way.
import { TextSplitter, type TextSplitterParams } from "@langchain/textsplitters";
import type { Tiktoken } from "js-tiktoken/lite";
import { badRequest } from "../../errors";

const RANKS: Record<string, () => Promise<{ default: unknown }>> = {
  gpt2: () => import("js-tiktoken/ranks/gpt2"),
  cl100k_base: () => import("js-tiktoken/ranks/cl100k_base"),
};

export const supportedEncodings = (): string[] => Object.keys(RANKS);

const cache = new Map<string, Promise<Tiktoken>>();

async function tokenizer(encoding: string): Promise<Tiktoken> {
  const load = RANKS[encoding];
  if (!load) throw badRequest(`tokenTextSplitter encodingName "${encoding}" is not available here. Supported: ${supportedEncodings().join(", ")}`);
  let found = cache.get(encoding);
  if (!found) {
    found = Promise.all([load(), import("js-tiktoken/lite")]).then(([ranks, lite]) => new lite.Tiktoken(ranks.default as never));
    cache.set(encoding, found);
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
    if (!RANKS[this.encodingName]) throw badRequest(`tokenTextSplitter encodingName "${this.encodingName}" is not available here. Supported: ${supportedEncodings().join(", ")}`);
  }

  async splitText(text: string): Promise<string[]> {
    const tk = await tokenizer(this.encodingName);
    const ids = tk.encode(text, [], []);
    const splits: string[] = [];
    let start = 0;
    while (start < ids.length) {
      if (start > 0) start -= this.chunkOverlap;
      const end = Math.min(start + this.chunkSize, ids.length);
      splits.push(tk.decode(ids.slice(start, end)));
      start = end;
    }
    return splits;
  }
}
