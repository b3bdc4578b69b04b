// replicate: a prediction on Replicate's HTTP API — POST <base>/v1/predictions {version, input}
// (or /v1/models/<owner>/<name>/predictions without a version) with `Prefer: wait`, then polling
// GET <base>/v1/predictions/<id> (the URL built from our base, not taken from the answer) until it
// succeeds, fails or is canceled. The output as LangChain's Replicate gives it: a string as is, a
// list (tokens, image URLs) joined.
import { fail } from "../../errors";
import { pause } from "../../lib/pace";
import type { RemoteModelFields } from "./base";
import type { Deadline } from "../../lib/run-control";
import { messageOf } from "./http";
import { TextLLM } from "./text-llm";

export interface ReplicateFields extends RemoteModelFields {
  /** …/v1 */
  baseUrl: string;
  apiKey?: string;
  /** owner/name or owner/name:version */
  modelRef: string;
  /** Model inputs besides the prompt (temperature, max_length, … and additionalInputs). */
  input: Record<string, unknown>;
  pollMs?: number;
  /** Longest wait for a prediction, polling included (default 5 min). */
  maxWaitMs?: number;
}

type Prediction = { id?: string; status?: string; output?: unknown; error?: unknown };
const sleep = async (ms: number, signal: AbortSignal) => {
  await pause(ms, signal);
  if (signal.aborted) throw signal.reason;
};

export class ReplicateModel extends TextLLM {
  readonly provider = "Replicate";
  readonly baseUrl: string;
  readonly modelRef: string;
  readonly input: Record<string, unknown>;
  private readonly apiKey?: string;
  private readonly pollMs: number;
  private readonly maxWaitMs: number;

  static lc_name() {
    return "ReplicateModel";
  }

  constructor(fields: ReplicateFields) {
    super(fields);
    this.baseUrl = fields.baseUrl;
    this.modelRef = fields.modelRef;
    this.input = fields.input;
    this.apiKey = fields.apiKey;
    this.pollMs = fields.pollMs ?? 1000;
    this.maxWaitMs = fields.maxWaitMs ?? 300_000;
  }

  _llmType(): string {
    return "replicate";
  }

  protected override secrets(): string[] {
    return this.apiKey ? [this.apiKey] : [];
  }

  private headers(): Record<string, string> {
    // A bare `Prefer: wait` holds the request up to 60 s, as long as our default deadline (or longer than
    // a node's timeout): the create call was aborted (and retried: a second prediction) instead of
    // falling back to polling. wait=N (1–60 s) with N within four fifths of the deadline.
    const wait = Math.min(60, Math.max(1, Math.floor((this.timeoutMs * 0.8) / 1000)));
    const h: Record<string, string> = { "content-type": "application/json", prefer: `wait=${wait}` };
    if (this.apiKey) h.authorization = `Bearer ${this.apiKey}`;
    return h;
  }

  protected async complete(prompt: string, deadline: Deadline): Promise<string> {
    const [name, version] = this.modelRef.split(":");
    const input = { ...this.input, prompt };
    const [url, body] = version
      ? [`${this.baseUrl}/predictions`, { version, input }]
      : [`${this.baseUrl}/models/${name.split("/").map(encodeURIComponent).join("/")}/predictions`, { input }];
    let p = await this.fetchJson<Prediction>(url, { method: "POST", headers: this.headers(), body: JSON.stringify(body) }, deadline);
    const started = Date.now();
    while (p.status !== "succeeded") {
      if (p.status === "failed" || p.status === "canceled")
        throw fail("MODEL_FAILED", `Replicate prediction ${p.status}: ${p.error ? messageOf(p.error) : "no details"}`);
      if (!p.id) throw fail("MODEL_FAILED", "Replicate answered without a prediction id");
      if (Date.now() - started > this.maxWaitMs)
        throw fail("MODEL_TIMEOUT", `Replicate prediction ${p.id} did not finish within ${this.maxWaitMs} ms`);
      await sleep(this.pollMs, deadline.signal);
      deadline.touch(); // polling is progress; each request keeps its own deadline
      p = await this.fetchJson<Prediction>(
        `${this.baseUrl}/predictions/${encodeURIComponent(p.id)}`,
        { headers: this.headers() },
        deadline,
      );
    }
    const out = p.output;
    if (typeof out === "string") return out;
    if (Array.isArray(out)) return out.map(String).join("");
    return out == null ? "" : JSON.stringify(out);
  }
}
