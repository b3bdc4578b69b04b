// Vectara's REST API v1 over fetch, as LangChain's VectaraStore (Flowise's nodes) calls it: POST
// /v1/index (one document per call: document_id, title, metadata_json, one section of text), /v1/delete-doc,
// /v1/query (corpus keys with metadataFilter and lambda, contextConfig, the MMR reranker, a summary)
// and /v1/upload?c=&o=&d=true (a file, multipart). Headers x-api-key, customer-id, X-Source: flowise.
// The host is VECTARA_BASE_URL (default https://api.vectara.io), under the outbound policy's endpoint
// rule. Failures as remote.ts's serviceCall says (502, 504 naming Vectara, never the key).
import { ApiError, fail } from "../../../errors";
import { errorMessage } from "../../../lib/error-message";
import { type EndpointPolicy, endpointFetch } from "../../../lib/outbound";
import { redact } from "../../../lib/redact";
import { Deadline, RunAborted } from "../../../lib/run-control";
import { providerErrorMessage } from "../../chat/http";
import { SERVICE_TIMEOUT_MS, type ServiceCall, serviceCall } from "../remote";

export const VECTARA_BASE = "https://api.vectara.io";
/** Vectara's MMR reranker (Flowise's and LangChain's id). */
const MMR_RERANKER_ID = 272725718;

export interface VectaraClientOptions {
  base: string;
  policy: EndpointPolicy;
  apiKey: string;
  customerId: string;
  /** The credential's corpusID, split at commas (a query searches them all; writes go to one). */
  corpusIds: string[];
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** How a query searches (Flowise's vectaraFilter): metadata filter, lambda, context sentences, MMR. */
export interface VectaraSearch {
  filter?: string;
  lambda?: number;
  sentencesBefore?: number;
  sentencesAfter?: number;
  /** MMR is on when above 0: mmrK results are reranked for diversity. */
  mmrDiversityBias?: number;
  mmrK?: number;
}

export interface VectaraSummaryRequest {
  summarizerPromptName?: string;
  responseLang?: string;
  maxSummarizedResults: number;
}

type NameValue = Array<{ name: string; value: string }>;

export interface VectaraResponse {
  text: string;
  score: number;
  documentIndex: number;
  metadata?: NameValue;
}

export interface VectaraResponseSet {
  response?: VectaraResponse[];
  document?: Array<{ id: string; metadata?: NameValue }>;
  summary?: Array<{ text?: string; status?: Array<{ code?: string; statusDetail?: string }> }>;
}

const SERVICE = "Vectara";

export class VectaraClient {
  private readonly service: ServiceCall;

  constructor(readonly o: VectaraClientOptions) {
    this.service = {
      service: SERVICE,
      apiKey: o.apiKey,
      headers: { "x-api-key": o.apiKey, "customer-id": o.customerId, "X-Source": "flowise" },
      timeoutMs: o.timeoutMs,
      signal: o.signal,
      notFoundHint: "check the vectaraApi credential's customerID and corpusID",
      refusedHint: "check the vectaraApi credential",
      detail: async (res) => {
        const text = await res.text();
        try {
          const body = JSON.parse(text);
          return String(body.message ?? body.status?.statusDetail ?? body.details ?? text);
        } catch {
          return text.slice(0, 300) || res.statusText;
        }
      },
    };
  }

  /** The one corpus a write goes to (LangChain refuses writes to several). */
  private writeCorpus(): string {
    if (this.o.corpusIds.length !== 1)
      throw fail("INVALID_FLOW", "Vectara writes go to one corpus: the vectaraApi credential's corpusID lists several");
    return this.o.corpusIds[0];
  }

  private post<T>(what: string, path: string, body: unknown): Promise<T | null> {
    return serviceCall<T>(this.service, what, `${this.o.base}${path}`, { method: "POST", body: JSON.stringify(body) }, this.o.policy);
  }

  async index(id: string, text: string, metadata: Record<string, unknown>): Promise<void> {
    const document = { document_id: id, title: String(metadata.title ?? ""), metadata_json: JSON.stringify(metadata), section: [{ text }] };
    const res = await this.post<{ status?: { code?: string; statusDetail?: string } }>("index", "/v1/index", {
      customer_id: this.o.customerId,
      corpus_id: this.writeCorpus(),
      document,
    });
    const code = res?.status?.code;
    if (code && code !== "OK" && code !== "ALREADY_EXISTS")
      throw fail("UPSTREAM_FAILED", `Vectara index failed (${code}): ${redact(res?.status?.statusDetail ?? "", [this.o.apiKey])}`);
  }

  async deleteDoc(id: string): Promise<void> {
    await this.post("delete-doc", "/v1/delete-doc", { customer_id: this.o.customerId, corpus_id: this.writeCorpus(), document_id: id });
  }

  /** One query: k results (mmrK when MMR is on), with a summary when asked. */
  async query(query: string, k: number, s: VectaraSearch, summary?: VectaraSummaryRequest): Promise<VectaraResponseSet> {
    const mmr = (s.mmrDiversityBias ?? 0) > 0;
    const contextConfig = { sentencesBefore: s.sentencesBefore, sentencesAfter: s.sentencesAfter };
    const body = {
      query: [
        {
          query,
          start: 0,
          numResults: mmr ? (s.mmrK ?? 50) : k,
          contextConfig,
          ...(mmr ? { rerankingConfig: { rerankerId: MMR_RERANKER_ID, mmrConfig: { diversityBias: s.mmrDiversityBias } } } : {}),
          corpusKey: this.o.corpusIds.map((corpusId) => ({
            customerId: this.o.customerId,
            corpusId,
            metadataFilter: s.filter ?? "",
            lexicalInterpolationConfig: { lambda: s.lambda ?? 0 },
          })),
          ...(summary ? { summary: [summary] } : {}),
        },
      ],
    };
    const res = await this.post<{ responseSet?: VectaraResponseSet[] }>("query", "/v1/query", body);
    return res?.responseSet?.[0] ?? {};
  }

  /** Uploads a file into the corpus (Vectara extracts and chunks it): its document id, or null when it is there already (409). */
  async upload(file: { name: string; mime: string; bytes: Uint8Array }): Promise<string | null> {
    const url = `${this.o.base}/v1/upload?c=${encodeURIComponent(this.o.customerId)}&o=${encodeURIComponent(this.writeCorpus())}&d=true`;
    const form = new FormData();
    form.append("file", new Blob([file.bytes], { type: file.mime || "application/octet-stream" }), file.name);
    form.append("doc-metadata", "{}");
    const ms = this.o.timeoutMs ?? SERVICE_TIMEOUT_MS;
    const deadline = new Deadline(ms, this.o.signal);
    try {
      const headers = { "x-api-key": this.o.apiKey, "X-Source": "flowise" };
      const res = await endpointFetch(url, { method: "POST", headers, body: form, signal: deadline.signal }, this.o.policy);
      if (res.status === 409) {
        await res.body?.cancel();
        return null;
      }
      if (!res.ok) {
        const detail = redact(await deadline.race(providerErrorMessage(res)), [this.o.apiKey]);
        throw fail("UPSTREAM_FAILED", `Vectara upload of ${file.name} failed (${res.status}): ${detail}`);
      }
      const answer = JSON.parse(await deadline.race(res.text())) as { document?: { documentId?: string } };
      return answer.document?.documentId ?? file.name;
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (deadline.aborted) throw new RunAborted();
      if (deadline.timedOut) throw fail("TIMEOUT", `Vectara upload did not answer within ${Math.round(ms)} ms`);
      throw fail("UPSTREAM_FAILED", `Vectara upload of ${file.name} failed: ${redact(errorMessage(err), [this.o.apiKey])}`);
    } finally {
      deadline.done();
    }
  }
}
