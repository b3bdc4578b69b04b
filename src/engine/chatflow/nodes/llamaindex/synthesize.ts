// LlamaIndex's response synthesizers, as Flowise runs them: the retrieved chunks and the query
// become one answer through the model. Only the last model call of an answer streams.
//   CompactAndRefine  chunks repacked into as few prompt-sized pieces as fit, then Refine over them
//   Refine            first piece answered with the text QA prompt, each next one refines the answer
//   TreeSummarize     pieces summarised (in parallel), the summaries again, until one piece is left
//   SimpleResponseBuilder  one call: the text QA prompt over all chunks
// Piece sizes follow LlamaIndex's PromptHelper (3,900-token window, 256 for the answer, padding 5),
// counting a token as 4 characters (no tokenizer download in the worker).
import { RecursiveCharacterTextSplitter } from "@langchain/textsplitters";
import { fail } from "../../../../errors";
import { DEFAULT_REFINE_PROMPT, DEFAULT_TEXT_QA_PROMPT, fillPrompt } from "./prompts";

export type SynthesizerType = "CompactAndRefine" | "Refine" | "TreeSummarize" | "SimpleResponseBuilder";

/** What a response synthesizer node builds (Flowise's ResponseSynthesizerClass). */
export interface SynthesizerInstance {
  kind: "responseSynthesizer";
  type: SynthesizerType;
  textQAPrompt: string;
  refinePrompt: string;
}

/** The synthesizer LlamaIndex uses when none is connected. */
export const DEFAULT_SYNTHESIZER: SynthesizerInstance = {
  kind: "responseSynthesizer",
  type: "CompactAndRefine",
  textQAPrompt: DEFAULT_TEXT_QA_PROMPT,
  refinePrompt: DEFAULT_REFINE_PROMPT,
};

export const isSynthesizer = (v: unknown): v is SynthesizerInstance =>
  !!v && typeof v === "object" && (v as { kind?: unknown }).kind === "responseSynthesizer";

/** One model call on a prompt; `stream` says this call's tokens are the answer's (the last call). */
export type Complete = (prompt: string, stream: boolean) => Promise<string>;

/** LlamaIndex's answer when there is nothing to synthesize from. */
const EMPTY_RESPONSE = "Empty Response";

const CONTEXT_WINDOW = 3900;
const NUM_OUTPUT = 256;
const PADDING = 5;
const CHARS_PER_TOKEN = 4;
/** TreeSummarize rounds before giving up on summaries that do not get shorter. */
const MAX_TREE_ROUNDS = 6;

/** The chunks joined and re-split into pieces that fit the template (LlamaIndex's PromptHelper.repack). */
export async function repack(template: string, chunks: string[]): Promise<string[]> {
  const promptTokens = Math.ceil(template.length / CHARS_PER_TOKEN);
  const chunkTokens = Math.max(CONTEXT_WINDOW - promptTokens - NUM_OUTPUT - PADDING, 1);
  const chunkSize = chunkTokens * CHARS_PER_TOKEN;
  const combined = chunks.join("\n\n");
  if (!combined.trim()) return [];
  if (combined.length <= chunkSize) return [combined];
  const splitter = new RecursiveCharacterTextSplitter({ chunkSize, chunkOverlap: Math.floor(chunkSize / 10) });
  return splitter.splitText(combined);
}

/** The longer of the two prompts, the query filled in: pieces sized for it fit either. */
function biggestPrompt(s: SynthesizerInstance, query: string): string {
  const qa = fillPrompt(s.textQAPrompt, { query });
  const refine = fillPrompt(s.refinePrompt, { query });
  return qa.length >= refine.length ? qa : refine;
}

/** First piece answered, every next one refining the answer; the last call streams. */
async function refine(s: SynthesizerInstance, query: string, pieces: string[], complete: Complete): Promise<string | undefined> {
  let answer: string | undefined;
  for (const [i, context] of pieces.entries()) {
    const last = i === pieces.length - 1;
    answer =
      answer === undefined
        ? await complete(fillPrompt(s.textQAPrompt, { context, query }), last)
        : await complete(fillPrompt(s.refinePrompt, { context, query, existingAnswer: answer }), last);
  }
  return answer;
}

const totalLength = (texts: string[]) => texts.reduce((n, t) => n + t.length, 0);

async function treeSummarize(s: SynthesizerInstance, query: string, chunks: string[], complete: Complete): Promise<string | undefined> {
  let texts = chunks;
  for (let round = 0; round < MAX_TREE_ROUNDS; round++) {
    const pieces = await repack(fillPrompt(s.textQAPrompt, {}), texts);
    if (!pieces.length) return undefined;
    if (pieces.length === 1) return complete(fillPrompt(s.textQAPrompt, { context: pieces[0], query }), true);
    const summaries = await Promise.all(pieces.map((context) => complete(fillPrompt(s.textQAPrompt, { context, query }), false)));
    // Summaries no shorter than their text would only multiply the calls, round after round.
    if (totalLength(summaries) >= totalLength(texts))
      throw fail("MODEL_FAILED", "TreeSummarize: the model's summaries are no shorter than the text they summarise");
    texts = summaries;
  }
  throw fail("MODEL_FAILED", `TreeSummarize: the model's summaries still do not fit one prompt after ${MAX_TREE_ROUNDS} rounds`);
}

type Strategy = (s: SynthesizerInstance, query: string, chunks: string[], complete: Complete) => Promise<string | undefined>;

/** Each synthesizer type's way to an answer (undefined: nothing to synthesize from). */
const strategies: Record<SynthesizerType, Strategy> = {
  SimpleResponseBuilder: (s, query, chunks, complete) =>
    complete(fillPrompt(s.textQAPrompt, { context: chunks.join("\n\n"), query }), true),
  TreeSummarize: treeSummarize,
  CompactAndRefine: async (s, query, chunks, complete) => refine(s, query, await repack(biggestPrompt(s, query), chunks), complete),
  // Each chunk on its own (split only when it alone does not fit).
  Refine: async (s, query, chunks, complete) => {
    const pieces: string[] = [];
    for (const chunk of chunks) pieces.push(...(await repack(biggestPrompt(s, query), [chunk])));
    return refine(s, query, pieces, complete);
  },
};

/**
 * The synthesizer's answer to `query` from the retrieved text chunks. With nothing to work from,
 * LlamaIndex answers "Empty Response" without calling the model; `say` passes that on (streaming).
 */
export async function synthesize(
  s: SynthesizerInstance,
  query: string,
  chunks: string[],
  complete: Complete,
  say: (text: string) => void,
): Promise<string> {
  const answer = await strategies[s.type](s, query, chunks, complete);
  if (answer !== undefined) return answer;
  say(EMPTY_RESPONSE);
  return EMPTY_RESPONSE;
}
