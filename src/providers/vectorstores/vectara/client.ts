// Vectara's REST API v2 over fetch (v1 — /v1/index, /v1/query, /v1/upload, the customer-id header — was
// retired on 2025-08-16): POST /v2/corpora/{key}/documents (one core document per chunk: its metadata,
// one part with its text), DELETE /v2/corpora/{key}/documents/{id}, POST /v2/query (the corpus keys
// with metadata_filter and lexical_interpolation, context sentences, the MMR reranker, generation for a
// summary) and POST /v2/corpora/{key}/upload_file (a file, multipart). Header x-api-key (no customer id).
// The host is VECTARA_BASE_URL (default https://api.vectara.io), under the outbound policy's endpoint
// rule. Failures as remote.ts's serviceCall says (502, 504 naming Vectara, never the key).
import { ApiError, fail } from "../../../errors";
import { errorMessage } from "../../../lib/error-message";
import { type EndpointPolicy, endpointFetch } from "../../../lib/outbound";
import { redact } from "../../../lib/redact";
import { Deadline, RunAborted } from "../../../lib/run-control";
import { SERVICE_TIMEOUT_MS, type ServiceCall, serviceCall } from "../remote";
import { firstCodePoints } from "../../../lib/utf8";

export const VECTARA_BASE = "https://api.vectara.io";
/** QueryRequest.query's maxLength in Vectara's v2 reference (a longer query is a 400). */
const MAX_QUERY_CHARS = 5000;

export interface VectaraClientOptions {
  base: string;
  policy: EndpointPolicy;
  apiKey: string;
  /** The credential's corpusID, split at commas: v2 corpus keys (a query searches them all; writes go to one). */
  corpusKeys: string[];
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

export interface VectaraSearchResult {
  text?: string;
  score?: number;
  part_metadata?: Record<string, unknown>;
  document_metadata?: Record<string, unknown>;
  document_id?: string;
}

/** QueryFullResponse: the ranked results and, when generation was asked, the summary. */
export interface VectaraQueryResponse {
  search_results?: VectaraSearchResult[];
  summary?: string;
}

const SERVICE = "Vectara";

/** A v2 error body's text: {field_errors, messages, request_id} (BadRequestError, NotFoundError, Error). */
async function errorDetail(res: Response): Promise<string> {
  const text = await res.text();
  try {
    const body = JSON.parse(text);
    const fields = Object.entries(body.field_errors ?? {}).map(([k, v]) => `${k}: ${v}`);
    const messages: string[] = Array.isArray(body.messages) ? body.messages : [];
    const all = [...fields, ...messages.filter((m) => !fields.some((f) => f.endsWith(m)))];
    return all.length ? all.join("; ") : String(body.message ?? text);
  } catch {
    return text.slice(0, 300) || res.statusText;
  }
}

export class VectaraClient {
  private readonly service: ServiceCall;
  private readonly notFoundHint: string;

  constructor(readonly o: VectaraClientOptions) {
    // A v1 corpus id (digits) is no v2 corpus key: say so rather than "not found".
    const v1Id = o.corpusKeys.find((k) => /^\d+$/.test(k));
    this.notFoundHint = v1Id
      ? `Vectara's API v1 is retired: the vectaraApi credential's corpusID must now hold the corpus key ` +
        `(shown in Vectara's console), not the v1 corpus id ${v1Id}`
      : "check the vectaraApi credential's corpusID (Vectara corpus keys)";
    this.service = {
      service: SERVICE,
      apiKey: o.apiKey,
      headers: { "x-api-key": o.apiKey, "X-Source": "flowise" },
      timeoutMs: o.timeoutMs,
      signal: o.signal,
      notFoundHint: this.notFoundHint,
      refusedHint: "check the vectaraApi credential",
      detail: errorDetail,
    };
  }

  /** The one corpus a write goes to (LangChain refuses writes to several). */
  private writeCorpus(): string {
    if (this.o.corpusKeys.length !== 1)
      throw fail("INVALID_FLOW", "Vectara writes go to one corpus: the vectaraApi credential's corpusID lists several");
    return this.o.corpusKeys[0];
  }

  private corpusPath(rest = ""): string {
    return `${this.o.base}/v2/corpora/${encodeURIComponent(this.writeCorpus())}${rest}`;
  }

  /** One core document: its metadata at document level (doc.x filters), the chunk as its one part, as it is. */
  async index(id: string, text: string, metadata: Record<string, unknown>): Promise<void> {
    const body = JSON.stringify({ id, type: "core", metadata, document_parts: [{ text }] });
    // 409: the id is there already (a retried write; ids are content hashes under a record manager).
    await serviceCall(this.service, "index", this.corpusPath("/documents"), { method: "POST", body }, this.o.policy, [409]);
  }

  async deleteDoc(id: string): Promise<void> {
    const url = this.corpusPath(`/documents/${encodeURIComponent(id)}`);
    const gone = await serviceCall(this.service, "delete", url, { method: "DELETE" }, this.o.policy, [404]);
    // 404 is "corpus or document not found": the document is gone unless the corpus is missing
    // (an index-only key may not read the corpus, 403: then it is taken as gone).
    if (gone === null) await serviceCall(this.service, "delete", this.corpusPath(), { method: "GET" }, this.o.policy, [403]);
  }

  /** One query: k results (mmrK reranked to k when MMR is on), with a summary when asked. */
  async query(query: string, k: number, s: VectaraSearch, summary?: VectaraSummaryRequest): Promise<VectaraQueryResponse> {
    const mmr = (s.mmrDiversityBias ?? 0) > 0;
    const body = {
      query: firstCodePoints(query, MAX_QUERY_CHARS), // the reference's maxLength counts code points
      search: {
        corpora: this.o.corpusKeys.map((corpus_key) => ({
          corpus_key,
          ...(s.filter ? { metadata_filter: s.filter } : {}),
          lexical_interpolation: s.lambda ?? 0,
        })),
        limit: mmr ? (s.mmrK ?? 50) : k,
        context_configuration: { sentences_before: s.sentencesBefore, sentences_after: s.sentencesAfter },
        // v2 reranks with the account's best reranker unless told otherwise; v1 (our scores so far) did not.
        reranker: mmr ? { type: "mmr", diversity_bias: s.mmrDiversityBias, limit: k } : { type: "none" },
      },
      ...(summary
        ? {
            generation: {
              generation_preset_name: summary.summarizerPromptName,
              response_language: summary.responseLang,
              max_used_search_results: summary.maxSummarizedResults,
              // [n] citations, which the QA chain renumbers; no factual-consistency score (v1 computed none).
              citations: { style: "numeric" },
              enable_factual_consistency_score: false,
            },
          }
        : {}),
    };
    const url = `${this.o.base}/v2/query`;
    return (
      (await serviceCall<VectaraQueryResponse>(
        this.service,
        "query",
        url,
        { method: "POST", body: JSON.stringify(body) },
        this.o.policy,
      )) ?? {}
    );
  }

  /**
   * Uploads a file into the corpus (Vectara extracts and chunks it): its document id,
   * or null when another one is there under its name (409).
   */
  async upload(file: { name: string; mime: string; bytes: Uint8Array }): Promise<string | null> {
    const url = this.corpusPath("/upload_file");
    const form = new FormData();
    // The file name is the document id; v2 takes file names URL-encoded (non-ASCII ones included).
    form.append("file", new Blob([file.bytes], { type: file.mime || "application/octet-stream" }), encodeURIComponent(file.name));
    const ms = this.o.timeoutMs ?? SERVICE_TIMEOUT_MS;
    const deadline = new Deadline(ms, this.o.signal);
    try {
      const headers = { "x-api-key": this.o.apiKey, "X-Source": "flowise", Accept: "application/json" };
      const res = await endpointFetch(url, { method: "POST", headers, body: form, signal: deadline.signal }, this.o.policy);
      if (res.status === 409) {
        await res.body?.cancel();
        return null;
      }
      if (!res.ok) {
        const detail = redact(await deadline.race(errorDetail(res)), [this.o.apiKey]);
        if (res.status === 404) throw fail("INVALID_FLOW", `Vectara upload of ${file.name}: not found (${detail}); ${this.notFoundHint}`);
        throw fail("UPSTREAM_FAILED", `Vectara upload of ${file.name} failed (${res.status}): ${detail}`);
      }
      const answer = JSON.parse(await deadline.race(res.text())) as { id?: string };
      return answer.id ?? file.name;
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
