// LlamaIndex's response synthesizers as algorithms, with a recording model: which prompts are sent,
// in which order, which call streams, and how chunks are packed into prompt-sized pieces.
import { describe, expect, it } from "vitest";
import { DEFAULT_REFINE_PROMPT, DEFAULT_TEXT_QA_PROMPT, fillPrompt } from "../../src/engine/chatflow/nodes/llamaindex/prompts";
import { type SynthesizerInstance, repack, synthesize } from "../../src/engine/chatflow/nodes/llamaindex/synthesize";

const synth = (
  type: SynthesizerInstance["type"],
  textQAPrompt = "QA[{context}]({query})",
  refinePrompt = "RF[{existingAnswer}|{context}]({query})",
): SynthesizerInstance => ({
  kind: "responseSynthesizer",
  type,
  textQAPrompt,
  refinePrompt,
});

/** A model that answers "A<n>" to its n-th call, recording the prompts and whether each streamed. */
function recorder() {
  const calls: Array<{ prompt: string; stream: boolean }> = [];
  const said: string[] = [];
  const complete = async (prompt: string, stream: boolean) => {
    calls.push({ prompt, stream });
    return `A${calls.length}`;
  };
  return { calls, said, complete, say: (t: string) => void said.push(t) };
}

const words = (n: number, word: string) => Array.from({ length: n }, () => word).join(" ");

describe("fillPrompt", () => {
  it("fills the three placeholders in one pass; a value is never read as a placeholder; other braces stay", () => {
    expect(fillPrompt("{query} {context} {existingAnswer} {other} {{x}}", { query: "{context}", context: "C" })).toBe(
      "{context} C  {other} {{x}}",
    );
    expect(fillPrompt(DEFAULT_TEXT_QA_PROMPT, { context: "$& $1", query: "q" })).toContain("$& $1");
  });
});

describe("repack (LlamaIndex's PromptHelper: 3,900-token window, 256 for the answer)", () => {
  it("small chunks become one piece joined by blank lines; nothing becomes no piece", async () => {
    expect(await repack(DEFAULT_TEXT_QA_PROMPT, ["a", "b", "c"])).toEqual(["a\n\nb\n\nc"]);
    expect(await repack(DEFAULT_TEXT_QA_PROMPT, [])).toEqual([]);
    expect(await repack(DEFAULT_TEXT_QA_PROMPT, ["  "])).toEqual([]);
  });

  it("text longer than the window is split into pieces that fit, covering all of it", async () => {
    const chunks = [words(3000, "alpha"), words(3000, "beta")]; // ~36,000 characters, ~9,000 tokens
    const pieces = await repack(DEFAULT_TEXT_QA_PROMPT, chunks);
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    const room = (3900 - Math.ceil(DEFAULT_TEXT_QA_PROMPT.length / 4) - 256 - 5) * 4;
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(room);
    expect(
      pieces
        .join(" ")
        .split(/\s+/)
        .filter((w) => w === "beta").length,
    ).toBeGreaterThanOrEqual(3000);
  });
});

describe("synthesize", () => {
  it("CompactAndRefine: chunks that fit make one text-QA call, which streams", async () => {
    const r = recorder();
    expect(await synthesize(synth("CompactAndRefine"), "q", ["c1", "c2"], r.complete, r.say)).toBe("A1");
    expect(r.calls).toEqual([{ prompt: "QA[c1\n\nc2](q)", stream: true }]);
  });

  it("CompactAndRefine over text longer than a prompt: QA on the first piece, then refine with each next; only the last streams", async () => {
    const r = recorder();
    const answer = await synthesize(synth("CompactAndRefine"), "q", [words(3000, "alpha"), words(3000, "beta")], r.complete, r.say);
    expect(r.calls.length).toBeGreaterThanOrEqual(3);
    expect(r.calls[0].prompt.startsWith("QA[alpha")).toBe(true);
    for (const [i, c] of r.calls.slice(1).entries()) expect(c.prompt.startsWith(`RF[A${i + 1}|`)).toBe(true);
    expect(r.calls.map((c) => c.stream)).toEqual([...r.calls.slice(1).map(() => false), true]);
    expect(answer).toBe(`A${r.calls.length}`);
  });

  it("Refine: one call per chunk, each refining the answer so far", async () => {
    const r = recorder();
    expect(await synthesize(synth("Refine"), "q", ["c1", "c2", "c3"], r.complete, r.say)).toBe("A3");
    expect(r.calls).toEqual([
      { prompt: "QA[c1](q)", stream: false },
      { prompt: "RF[A1|c2](q)", stream: false },
      { prompt: "RF[A2|c3](q)", stream: true },
    ]);
  });

  it("TreeSummarize: pieces summarised (none streamed), the summaries answered in one streamed call", async () => {
    const r = recorder();
    const s = synth("TreeSummarize", "TS[{context}]({query})");
    const answer = await synthesize(s, "q", [words(3000, "alpha"), words(3000, "beta")], r.complete, r.say);
    const last = r.calls.at(-1)!;
    const summaries = r.calls.slice(0, -1);
    expect(summaries.length).toBeGreaterThanOrEqual(3);
    expect(summaries.every((c) => !c.stream && c.prompt.startsWith("TS[") && c.prompt.endsWith("](q)"))).toBe(true);
    expect(last).toEqual({ prompt: `TS[${summaries.map((_, i) => `A${i + 1}`).join("\n\n")}](q)`, stream: true });
    expect(answer).toBe(`A${r.calls.length}`);
  });

  it("TreeSummarize whose summaries are no shorter than their text: 502 after that round, not round after round", async () => {
    const s = synth("TreeSummarize", "TS[{context}]({query})");
    let calls = 0;
    const verbose = async () => {
      calls++;
      return words(3000, "again");
    };
    await expect(synthesize(s, "q", [words(3000, "alpha"), words(3000, "beta")], verbose, () => {})).rejects.toMatchObject({ status: 502 });
    expect(calls).toBe((await repack(fillPrompt("TS[{context}]({query})", {}), [words(3000, "alpha"), words(3000, "beta")])).length);
  });

  it("SimpleResponseBuilder: one call over every chunk", async () => {
    const r = recorder();
    await synthesize(synth("SimpleResponseBuilder"), "q", ["c1", "c2", "c3"], r.complete, r.say);
    expect(r.calls).toEqual([{ prompt: "QA[c1\n\nc2\n\nc3](q)", stream: true }]);
  });

  it("nothing retrieved: 'Empty Response' said, no call (Refine, CompactAndRefine, TreeSummarize)", async () => {
    for (const type of ["Refine", "CompactAndRefine", "TreeSummarize"] as const) {
      const r = recorder();
      expect(await synthesize(synth(type), "q", [], r.complete, r.say), type).toBe("Empty Response");
      expect(r.calls, type).toEqual([]);
      expect(r.said, type).toEqual(["Empty Response"]);
    }
  });

  it("the default prompts are LlamaIndex's", () => {
    expect(fillPrompt(DEFAULT_REFINE_PROMPT, { query: "Q", existingAnswer: "E", context: "C" })).toBe(
      "The original query is as follows: Q\nWe have provided an existing answer: E\nWe have the opportunity to refine the existing answer (only if needed) with some more context below.\n------------\nC\n------------\nGiven the new context, refine the original answer to better answer the query. If the context isn't useful, return the original answer.\nRefined Answer:",
    );
  });
});
