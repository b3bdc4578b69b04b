// huggingFaceInference_LLMs: text generation on Hugging Face's Inference API
// (POST <base>/models/<model>, {inputs, parameters}) or on the node's own Inference Endpoint URL
// (`endpoint` input). Answers [{generated_text}]; only the new text is asked for (return_full_text: false).
import { fail } from "../../errors";
import type { RemoteModelFields } from "./base";
import type { Deadline } from "../../lib/run-control";
import { messageOf } from "./http";
import { TextLLM } from "./text-llm";

export interface HuggingFaceFields extends RemoteModelFields {
  /** Where the POST goes: …/models/<model>, or the user's endpoint. */
  url: string;
  apiKey?: string;
  topK?: number;
  repetitionPenalty?: number;
}

export class HuggingFaceInferenceModel extends TextLLM {
  readonly provider = "Hugging Face Inference";
  readonly url: string;
  topK?: number;
  repetitionPenalty?: number;
  private readonly apiKey?: string;

  static lc_name() {
    return "HuggingFaceInferenceModel";
  }

  constructor(fields: HuggingFaceFields) {
    super(fields);
    this.url = fields.url;
    this.apiKey = fields.apiKey;
    this.topK = fields.topK;
    this.repetitionPenalty = fields.repetitionPenalty;
  }

  _llmType(): string {
    return "huggingface-inference";
  }

  protected override secrets(): string[] {
    return this.apiKey ? [this.apiKey] : [];
  }

  protected async complete(prompt: string, deadline: Deadline, options: this["ParsedCallOptions"]): Promise<string> {
    const parameters: Record<string, unknown> = { return_full_text: false };
    // TGI refuses (422) temperature, top_k, repetition_penalty or max_new_tokens ≤ 0 and top_p outside (0, 1);
    // each such setting means its default (greedy decoding, no nucleus or top-k cut, no penalty), so it is left out.
    const t = this.temperature;
    if (t !== undefined && t > 0) parameters.temperature = t;
    if (this.maxTokens !== undefined && this.maxTokens > 0) parameters.max_new_tokens = this.maxTokens;
    if (this.topP !== undefined && this.topP > 0 && this.topP < 1) parameters.top_p = this.topP;
    if (this.topK !== undefined && this.topK > 0) parameters.top_k = this.topK;
    if (this.repetitionPenalty !== undefined && this.repetitionPenalty > 0) parameters.repetition_penalty = this.repetitionPenalty;
    const stop = options.stop ?? this.stop;
    if (stop?.length) parameters.stop = stop;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    const init = { method: "POST", headers, body: JSON.stringify({ inputs: prompt, parameters }) };
    const json = await this.fetchJson<unknown>(this.url, init, deadline);
    const first = Array.isArray(json) ? json[0] : json;
    if (first && typeof first === "object" && "error" in first)
      throw fail("MODEL_FAILED", `${this.provider}: ${messageOf((first as { error: unknown }).error)}`);
    const text = first && typeof first === "object" ? (first as { generated_text?: unknown }).generated_text : undefined;
    if (typeof text !== "string") throw fail("MODEL_FAILED", `${this.provider} answered without generated_text`);
    return text;
  }
}
