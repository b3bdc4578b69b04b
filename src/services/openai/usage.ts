// Token usage of a run for OpenAI's `usage`: what the flow's chat models reported, summed over every
// model call of the run, else counted with the cl100k_base tokenizer the token splitter ships.
//
// The reported counts are collected without touching the engine: LangChain hands a callback handler
// found in its async-local run config to every model call made inside it (ensureConfig reads it),
// and each call ends with handleLLMEnd carrying the provider's counts (llmOutput.tokenUsage, or the
// message's usage_metadata). Provider classes parse those counts: openai-compatible.ts (`usage`),
// anthropic.ts, gemini.ts (`usageMetadata`).
import { AsyncLocalStorage } from "node:async_hooks";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { LLMResult } from "@langchain/core/outputs";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { tokenizer } from "../../providers/splitters/token";

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** "reported": the providers' own counts; "counted": the tokenizer's, none being reported. */
  source: "reported" | "counted";
}

// LangChain keeps its run config in this storage; without a real one every lookup finds nothing.
AsyncLocalStorageProviderSingleton.initializeGlobalInstance(new AsyncLocalStorage());

type Counts = { input_tokens?: number; output_tokens?: number; total_tokens?: number };

class UsageCollector extends BaseCallbackHandler {
  name = "edgeflow_openai_usage";
  calls = 0;
  prompt = 0;
  completion = 0;
  total = 0;

  constructor() {
    super({ _awaitHandler: true }); // counted before the run's promise settles, not in the background
  }

  override handleLLMEnd(output: LLMResult): void {
    const reported = output.llmOutput?.tokenUsage as { promptTokens?: number; completionTokens?: number; totalTokens?: number } | undefined;
    if (reported && (reported.promptTokens || reported.completionTokens || reported.totalTokens)) {
      this.add(reported.promptTokens ?? 0, reported.completionTokens ?? 0, reported.totalTokens);
      return;
    }
    for (const generation of output.generations.flat()) {
      const counts = (generation as { message?: { usage_metadata?: Counts } }).message?.usage_metadata;
      if (counts && (counts.input_tokens || counts.output_tokens || counts.total_tokens))
        this.add(counts.input_tokens ?? 0, counts.output_tokens ?? 0, counts.total_tokens);
    }
  }

  private add(prompt: number, completion: number, total?: number): void {
    this.calls++;
    this.prompt += prompt;
    this.completion += completion;
    this.total += total || prompt + completion;
  }
}

/** Runs `work` with every model call inside it reporting its token counts; `usage()` sums them (undefined: none reported). */
export function collectUsage<T>(work: () => Promise<T>): { result: Promise<T>; usage: () => Omit<TokenUsage, "source"> | undefined } {
  const collector = new UsageCollector();
  const result = AsyncLocalStorageProviderSingleton.runWithConfig({ callbacks: [collector] }, work) as Promise<T>;
  return {
    result,
    usage: () =>
      collector.calls
        ? { promptTokens: collector.prompt, completionTokens: collector.completion, totalTokens: collector.total }
        : undefined,
  };
}

/** Tokens of `texts` by cl100k_base (the encoding of GPT-3.5/4 models): an estimate where no provider reported. */
export async function countTokens(texts: string[]): Promise<number> {
  const tk = await tokenizer("cl100k_base");
  let n = 0;
  for (const text of texts) if (text) n += tk.encode(text, [], []).length;
  return n;
}

/** The reported usage, else prompt (every message sent) and completion (the answer) counted. */
export async function usageOf(reported: Omit<TokenUsage, "source"> | undefined, prompt: string[], answer: string): Promise<TokenUsage> {
  if (reported) return { ...reported, source: "reported" };
  const [promptTokens, completionTokens] = await Promise.all([countTokens(prompt), countTokens([answer])]);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, source: "counted" };
}
