// Text LLMs over their services' own generate APIs, one answer per call (not streamed):
// ollama — POST <baseUrl>/api/generate {model, prompt, stream: false, options} answering {response};
// cohere — POST <base>/v1/generate {model, prompt, max_tokens, temperature, end_sequences}
// answering {generations: [{text}]} (what the cohere-ai client behind Flowise's node sends).
import { fail } from "../../errors";
import type { Deadline } from "../../lib/run-control";
import type { RemoteModelFields } from "./base";
import { messageOf } from "./http";
import { TextLLM } from "./text-llm";

const compact = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

export interface OllamaGenerateFields extends RemoteModelFields {
  /** …/api/generate */
  url: string;
  /** Ollama's model options besides temperature, top_p and stop (top_k, mirostat, num_ctx, …). */
  options: Record<string, unknown>;
}

export class OllamaGenerateModel extends TextLLM {
  readonly provider = "Ollama";
  readonly url: string;
  readonly options: Record<string, unknown>;

  static lc_name() {
    return "OllamaGenerateModel";
  }

  constructor(fields: OllamaGenerateFields) {
    super(fields);
    this.url = fields.url;
    this.options = fields.options;
  }

  _llmType(): string {
    return "ollama";
  }

  protected async complete(prompt: string, deadline: Deadline, options: this["ParsedCallOptions"]): Promise<string> {
    const stop = options.stop ?? this.stop;
    const modelOptions = compact({
      ...this.options,
      temperature: this.temperature,
      top_p: this.topP,
      num_predict: this.maxTokens,
      stop: stop?.length ? stop : undefined,
    });
    const body = { model: this.model, prompt, stream: false, options: modelOptions };
    const init = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
    const json = await this.fetchJson<{ response?: unknown; error?: unknown }>(this.url, init, deadline);
    if (json?.error) throw fail("MODEL_FAILED", `${this.provider}: ${messageOf(json.error)}`);
    if (typeof json?.response !== "string") throw fail("MODEL_FAILED", `${this.provider} answered without a response`);
    return json.response;
  }
}

export interface CohereGenerateFields extends RemoteModelFields {
  /** …/v1/generate */
  url: string;
  apiKey?: string;
}

export class CohereGenerateModel extends TextLLM {
  readonly provider = "Cohere";
  readonly url: string;
  private readonly apiKey?: string;

  static lc_name() {
    return "CohereGenerateModel";
  }

  constructor(fields: CohereGenerateFields) {
    super(fields);
    this.url = fields.url;
    this.apiKey = fields.apiKey;
  }

  _llmType(): string {
    return "cohere";
  }

  protected override secrets(): string[] {
    return this.apiKey ? [this.apiKey] : [];
  }

  protected async complete(prompt: string, deadline: Deadline, options: this["ParsedCallOptions"]): Promise<string> {
    const stop = options.stop ?? this.stop;
    const body = compact({
      model: this.model,
      prompt,
      max_tokens: this.maxTokens,
      temperature: this.temperature,
      p: this.topP,
      end_sequences: stop?.length ? stop : undefined,
    });
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    const json = await this.fetchJson<{ generations?: Array<{ text?: unknown }>; message?: unknown }>(
      this.url,
      { method: "POST", headers, body: JSON.stringify(body) },
      deadline,
    );
    const text = json?.generations?.[0]?.text;
    if (typeof text !== "string") throw fail("MODEL_FAILED", `${this.provider} answered without a generation`);
    return text;
  }
}
