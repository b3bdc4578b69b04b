// Flowise's Vectara nodes over the vectara store (providers/vectorstores/vectara: Vectara's API v2),
// which embeds text itself — none takes an embeddings input:
// - vectara: a retriever (topK, default 5) or the store (output vectorStore, for the QA chain) with
//   the node's filter, lambda, context sentences and MMR; POST /vector/upsert indexes its loaders'
//   documents (through a record manager, as every store here: unchanged ones skipped) and uploads
//   the files of its `file` input;
// - vectaraUpload (deprecating in Flowise): uploads its files into the corpus when built, as Flowise
//   does on every run (the same file again is accepted as it is; another one under its name, 409, is
//   left as it is), then a retriever (topK default 4);
// - vectaraQAChain: Vectara's summarizer (v2 generation preset) over the question's results, its citations renumbered in
//   order of first use and the cited passages as source documents (vectara-answer's way, Flowise's).
import { ApiError, fail } from "../../../errors";
import { ServiceEmbedsText } from "../../../providers/vectorstores/remote";
import { type VectaraSearch, VectaraStore, hitsOf } from "../../../providers/vectorstores/vectara";
import { num, providerConfig, str } from "../../core/inputs";
import { asSources } from "../../core/retrievers";
import { type ModerationInstance, moderate, moderationsOf } from "../instances";
import type { BuildArgs, NodeDefinition } from "../types";
import { filesOfInput, vectorStoreNames } from "./document-loaders";
import { VECTOR_STORE_CATEGORY, flowNamespace, upsertInto } from "./vector-stores";

const VECTARA = "vectara";

async function openVectara(args: BuildArgs, over: Record<string, unknown> = {}): Promise<VectaraStore> {
  const { node, inputs, ctx } = args;
  const namespace = await flowNamespace(ctx.chatflowid, node.id);
  const store = await ctx.runtime.vectorStores.open(
    VECTARA,
    { ...providerConfig(node, inputs), ...over },
    new ServiceEmbedsText(),
    namespace,
  );
  if (!(store instanceof VectaraStore)) throw new Error("the vectara store did not open");
  return store;
}

const storeOutput = (store: VectaraStore, output: string | undefined) =>
  output === "vectorStore" ? store : store.asRetriever({ k: store.k });

const where = ({ node }: BuildArgs) => `${node.data.label} (${node.id})`;

const vectaraNode: NodeDefinition = {
  name: VECTARA,
  category: VECTOR_STORE_CATEGORY,
  build: async (args) => storeOutput(await openVectara(args), args.output),
  async upsert(args) {
    const files = await filesOfInput(args.inputs.file, args.ctx, where(args));
    const counts = await upsertInto({ ...args, inputs: { ...args.inputs, embeddings: new ServiceEmbedsText() } });
    if (files.length) {
      const { added, existing } = await (await openVectara(args)).uploadFiles(files);
      counts.numAdded += added;
      counts.numSkipped += existing;
    }
    return counts;
  },
};

const vectaraUploadNode: NodeDefinition = {
  name: "vectaraUpload",
  category: VECTOR_STORE_CATEGORY,
  async build(args) {
    const files = await filesOfInput(args.inputs.file, args.ctx, where(args));
    if (!files.length) throw fail("INVALID_FLOW", `${where(args)} needs a file in its file input to upload to Vectara`);
    // No MMR settings on this node; topK defaults to 4 here.
    const store = await openVectara(args, { topK: args.inputs.topK || 4, mmrDiversityBias: undefined, mmrK: undefined });
    await store.uploadFiles(files);
    return storeOutput(store, args.output);
  },
};

interface VectaraQaInstance {
  kind: "vectaraQAChain";
  store: VectaraStore;
  summary: { summarizerPromptName: string; responseLang: string; maxSummarizedResults: number };
  moderations: ModerationInstance[];
}

const CITATION = /\[\d+\]/g;

/** The summary's citations renumbered 1, 2, … in order of first use, and the cited results in that order. */
export function orderCitations<T>(summary: string, results: T[]): { text: string; cited: T[] } {
  const order = [...new Set(summary.match(CITATION) ?? [])];
  const text = summary.replace(CITATION, (c) => `[${order.indexOf(c) + 1}]`);
  const cited = order.map((c) => results[Number(c.slice(1, -1)) - 1]).filter((r) => r !== undefined);
  return { text, cited };
}

/**
 * The query with its summary. v2 answers a failed generation as an error status with its messages (v1 put
 * a status in the summary): one naming the preset means the account lacks it; "too much text" is v1's.
 */
async function summarize(store: VectaraStore, question: string, search: VectaraSearch, summary: VectaraQaInstance["summary"]) {
  try {
    return await (await store.vectara()).query(question, store.k, search, summary);
  } catch (err) {
    const message = err instanceof ApiError ? err.message : "";
    const preset = summary.summarizerPromptName;
    if (/too much text/i.test(message))
      throw fail(
        "UPSTREAM_FAILED",
        "Vectara: too much text for the summarizer to summarize; lower maxSummarizedResults or the store's sentencesBefore/sentencesAfter",
      );
    if (/\((400|404)\)|not found \(/.test(message) && message.includes(preset))
      throw fail("INVALID_FLOW", `Vectara: summarizer ${preset} is not available to this account; choose another summarizerPromptName`);
    throw err;
  }
}

const vectaraQaNode: NodeDefinition = {
  name: "vectaraQAChain",
  category: "Chains",
  async build(args): Promise<VectaraQaInstance> {
    const store = args.inputs.vectaraStore;
    if (!(store instanceof VectaraStore))
      throw fail(
        "INVALID_FLOW",
        `${where(args)} needs a Vectara node (its Vectara Vector Store output) connected to its vectaraStore input`,
      );
    const max = num(args.inputs.maxSummarizedResults) ?? 7;
    if (!Number.isInteger(max) || max < 1)
      throw fail("INVALID_FLOW", `${where(args)}: maxSummarizedResults must be a whole number of at least 1`);
    return {
      kind: "vectaraQAChain",
      store,
      summary: {
        summarizerPromptName: str(args.inputs.summarizerPromptName) ?? "vectara-summary-ext-v1.2.0",
        responseLang: str(args.inputs.responseLang) ?? "eng",
        maxSummarizedResults: max,
      },
      moderations: moderationsOf(args.inputs.inputModeration),
    };
  },
  async run(instance, { ctx, sink }) {
    const chain = instance as VectaraQaInstance;
    const checked = await moderate(ctx.question, chain.moderations);
    if ("refusal" in checked) {
      sink?.token(checked.refusal);
      return { text: checked.refusal };
    }
    const { store, summary } = chain;
    // Flowise's chain: lambda 0.025 and 2 sentences either side unless the store says otherwise.
    const s = store.search;
    const search = { ...s, lambda: s.lambda ?? 0.025, sentencesBefore: s.sentencesBefore ?? 2, sentencesAfter: s.sentencesAfter ?? 2 };
    const res = await summarize(store, checked.question, search, summary);
    const { text, cited } = orderCitations(res.summary ?? "", hitsOf(res));
    sink?.token(text);
    return { text, sourceDocuments: asSources(cited.map((h) => h.document)) };
  },
};

export const vectaraNodes: NodeDefinition[] = [vectaraNode, vectaraUploadNode, vectaraQaNode];
for (const n of [vectaraNode, vectaraUploadNode]) vectorStoreNames.add(n.name);
