// huggingFaceInferenceEmbeddings: Hugging Face's feature extraction over HTTP, as the node's client
// (@huggingface/inference featureExtraction on the hf-inference provider) calls it — POST
// <base>/models/<model>/pipeline/feature-extraction {inputs: [texts]} — or the node's own Inference
// Endpoint URL (`endpoint`) with the same body. Answered with one vector per text; a model that
// answers a vector per token (no pooling of its own) is mean-pooled here, so each text gets one.
import type { Deadline } from "../../lib/run-control";
import { fail } from "../../errors";
import { type EmbeddingsEndpoint, HttpEmbeddings, jsonOf, postJson, vectorsOf } from "./http";

/** Texts per request: the node sends all at once; a bounded batch keeps one upsert's requests small. */
const HF_BATCH = 64;

const isNumbers = (v: unknown): v is number[] => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "number");

/** A text's token vectors averaged into one. */
function meanPool(tokens: number[][]): number[] {
  const out = new Array<number>(tokens[0].length).fill(0);
  for (const t of tokens) for (let i = 0; i < out.length; i++) out[i] += t[i] ?? 0;
  return out.map((x) => x / tokens.length);
}

export class HuggingFaceEmbeddings extends HttpEmbeddings {
  constructor(endpoint: EmbeddingsEndpoint) {
    // New lines are replaced with spaces, as the node's class does.
    super(endpoint, HF_BATCH, true);
  }

  protected async request(texts: string[], _kind: "document" | "query", deadline: Deadline): Promise<number[][]> {
    const ep = this.endpoint;
    const headers: Record<string, string> = ep.apiKey ? { Authorization: `Bearer ${ep.apiKey}` } : {};
    const parsed = await jsonOf(ep, deadline, await postJson(ep, deadline, headers, { inputs: texts }));
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed) && "error" in parsed)
      throw fail("MODEL_FAILED", `${ep.provider}: ${String((parsed as { error: unknown }).error).slice(0, 300)}`);
    // One text may come back as a bare vector; token vectors ([text][token][dim]) are pooled.
    const rows = texts.length === 1 && isNumbers(parsed) ? [parsed] : parsed;
    const vectors = Array.isArray(rows)
      ? rows.map((row) => (Array.isArray(row) && row.length > 0 && row.every(isNumbers) ? meanPool(row as number[][]) : row))
      : rows;
    return vectorsOf(ep, vectors, texts.length);
  }
}
