// Sends a finished trace to each backend the flow's analytic names, after the answer went out (the
// run door hands this to waitUntil): endpoints and keys from the owner's credentials (Flowise's
// langfuseApi, langsmithApi, langwatchApi, lunaryApi, and arizeApi, phoenixApi, opikApi, whose traces go as
// OTLP protobuf with OpenInference's attributes; otlpApi for an OpenTelemetry collector),
// every URL under the outbound policy's endpoint rule, every backend at once, all of them within
// TRACE_TIMEOUT_MS. A backend that is down, slow or refuses is logged and forgotten: the run never waits for it.
import { configOf } from "../../config";
import type { Db, Env } from "../../env";
import { type EndpointPolicy, endpointFetch } from "../../lib/outbound";
import { redact } from "../../lib/redact";
import { getCredentialData } from "../credentials";
import type { TraceTarget } from "./config";
import { langfuseBatches } from "./langfuse";
import { langsmithBatches } from "./langsmith";
import { langwatchBodies } from "./langwatch";
import { lunaryBodies } from "./lunary";
import { otlpExports, otlpRequests } from "./otlp";
import { otlpProtobuf } from "./otlp-proto";
import type { Trace } from "./trace-types";

const DEFAULT_LANGFUSE = "https://cloud.langfuse.com";
const DEFAULT_LANGSMITH = "https://api.smith.langchain.com";
const DEFAULT_LANGWATCH = "https://app.langwatch.ai";
const DEFAULT_LUNARY = "https://api.lunary.ai";
const DEFAULT_ARIZE = "https://otlp.arize.com";
const DEFAULT_PHOENIX = "https://app.phoenix.arize.com";
const DEFAULT_OPIK = "https://www.comet.com/opik/api";

export const traceTimeoutMs = (env: Env): number => configOf(env).TRACE_TIMEOUT_MS;

interface Delivery {
  url: string;
  field: string;
  headers: Record<string, string>;
  bodies: Array<string | Uint8Array>;
  /** application/json unless said. */
  contentType?: string;
  /** What a 2xx answer says was dropped all the same (Langfuse's 207 `errors`, Lunary's failed `results`). */
  refusals?: (answer: unknown) => string[];
}

/** Langfuse answers 207 to every batch; an event its schema refuses is only in `errors`, and never stored. */
function langfuseRefusals(answer: unknown): string[] {
  const errors = (answer as { errors?: unknown })?.errors;
  return Array.isArray(errors)
    ? errors.map((e: { id?: string; status?: number; message?: string; error?: unknown }) =>
        `event ${e.id}: ${e.status} ${e.message ?? ""} ${typeof e.error === "string" ? e.error : JSON.stringify(e.error ?? "")}`.trim(),
      )
    : [];
}

/** Lunary answers 200 with a result per event; one it could not store has `success: false`. */
function lunaryRefusals(answer: unknown): string[] {
  const results = (answer as { results?: unknown })?.results;
  return Array.isArray(results)
    ? results
        .filter((r: { success?: boolean }) => r?.success === false)
        .map((r: { id?: string; error?: string }) => `run ${r.id}: ${r.error ?? "not stored"}`)
    : [];
}

const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : undefined);
const base = (url: string) => url.replace(/\/+$/, "");

/** `k=v,k2=v2` (OTEL_EXPORTER_OTLP_HEADERS' form) or a JSON object. */
function parseHeaders(value: unknown): Record<string, string> {
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
  const text = str(value);
  if (!text) return {};
  if (text.startsWith("{")) {
    try {
      return parseHeaders(JSON.parse(text));
    } catch {
      return {};
    }
  }
  return Object.fromEntries(
    text
      .split(",")
      .map((pair) => pair.split("="))
      .filter(([k, v]) => k?.trim() && v !== undefined)
      .map(([k, ...v]) => [k.trim(), decodeURIComponent(v.join("=").trim())]),
  );
}

type Backend = (target: TraceTarget, trace: Trace, credential: Record<string, unknown>) => Promise<Delivery | string> | Delivery | string;

/** Flowise's tracer for Arize, Phoenix and Opik: OTLP protobuf, OpenInference's attributes, the project on the resource. */
function openInference(
  url: string,
  field: string,
  headers: Record<string, string>,
  trace: Trace,
  project: string,
  extra: Array<[string, unknown]> = [],
) {
  const resource: Array<[string, unknown]> = [["service.version", "1.0.0"], ["openinference.project.name", project], ...extra];
  const bodies = otlpExports(trace, { serviceName: project, openinference: resource }).map(otlpProtobuf);
  return { url, field, headers, bodies, contentType: "application/x-protobuf" };
}

/** One entry per backend: where its payload goes, with which key, or why it cannot be sent. */
const BACKENDS: Record<TraceTarget["kind"], Backend> = {
  langfuse: (target, trace, credential) => {
    const publicKey = str(credential.langFusePublicKey);
    const secretKey = str(credential.langFuseSecretKey);
    if (!publicKey || !secretKey) return "its langfuseApi credential lacks langFusePublicKey or langFuseSecretKey";
    return {
      url: `${base(str(credential.langFuseEndpoint) ?? DEFAULT_LANGFUSE)}/api/public/ingestion`,
      field: "langfuseApi langFuseEndpoint",
      headers: { authorization: `Basic ${btoa(`${publicKey}:${secretKey}`)}` },
      bodies: langfuseBatches(trace, { release: target.release }),
      refusals: langfuseRefusals,
    };
  },
  langsmith: (target, trace, credential) => {
    const apiKey = str(credential.langSmithApiKey);
    if (!apiKey) return "its langsmithApi credential lacks langSmithApiKey";
    return {
      url: `${base(str(credential.langSmithEndpoint) ?? DEFAULT_LANGSMITH)}/runs/batch`,
      field: "langsmithApi langSmithEndpoint",
      headers: { "x-api-key": apiKey },
      bodies: langsmithBatches(trace, { projectName: target.projectName }),
    };
  },
  langwatch: (_target, trace, credential) => {
    const apiKey = str(credential.langWatchApiKey);
    if (!apiKey) return "its langwatchApi credential lacks langWatchApiKey";
    return {
      url: `${base(str(credential.langWatchEndpoint) ?? DEFAULT_LANGWATCH)}/api/collector`,
      field: "langwatchApi langWatchEndpoint",
      headers: { "x-auth-token": apiKey },
      bodies: langwatchBodies(trace),
    };
  },
  lunary: async (_target, trace, credential) => {
    const appId = str(credential.lunaryAppId);
    if (!appId) return "its lunaryApi credential lacks lunaryAppId";
    return {
      url: `${base(str(credential.lunaryEndpoint) ?? DEFAULT_LUNARY)}/v1/runs/ingest`,
      field: "lunaryApi lunaryEndpoint",
      headers: { authorization: `Bearer ${appId}` },
      bodies: await lunaryBodies(trace),
      refusals: lunaryRefusals,
    };
  },
  otlp: (target, trace, credential) => {
    const endpoint = str(credential.otlpEndpoint) ?? target.endpoint;
    if (!endpoint) return "it names no endpoint (otlpApi credential otlpEndpoint, or analytic.otlp.endpoint)";
    const url = /\/v1\/traces$/.test(base(endpoint)) ? base(endpoint) : `${base(endpoint)}/v1/traces`;
    return {
      url,
      field: "OTLP endpoint",
      headers: parseHeaders(credential.otlpHeaders),
      bodies: otlpRequests(trace, { serviceName: str(credential.otlpServiceName) }),
    };
  },
  // Flowise exports to Arize over gRPC ({endpoint}/v1, metadata api_key, space_id); a Worker speaks OTLP/HTTP, which Arize also takes.
  arize: (target, trace, credential) => {
    const apiKey = str(credential.arizeApiKey);
    const spaceId = str(credential.arizeSpaceId);
    if (!apiKey || !spaceId) return "its arizeApi credential lacks arizeApiKey or arizeSpaceId";
    const project = target.projectName ?? "default";
    const url = `${base(str(credential.arizeEndpoint) ?? DEFAULT_ARIZE)}/v1/traces`;
    return openInference(url, "arizeApi arizeEndpoint", { api_key: apiKey, space_id: spaceId }, trace, project, [["model_id", project]]);
  },
  phoenix: (target, trace, credential) => {
    const apiKey = str(credential.phoenixApiKey) ?? "";
    const url = `${base(str(credential.phoenixEndpoint) ?? DEFAULT_PHOENIX).replace(/\/v1\/traces$/, "")}/v1/traces`;
    const headers = { api_key: apiKey, authorization: `Bearer ${apiKey}` };
    return openInference(url, "phoenixApi phoenixEndpoint", headers, trace, target.projectName ?? "default");
  },
  opik: (target, trace, credential) => {
    const project = target.projectName ?? "default";
    const headers = {
      ...(str(credential.opikApiKey) ? { authorization: str(credential.opikApiKey) as string } : {}),
      projectName: project,
      "Comet-Workspace": str(credential.opikWorkspace) ?? "default",
    };
    const url = `${base(str(credential.opikUrl) ?? DEFAULT_OPIK)}/v1/private/otel/v1/traces`;
    return openInference(url, "opikApi opikUrl", headers, trace, project);
  },
};

const deliveryFor = async (target: TraceTarget, trace: Trace, credential: Record<string, unknown>) =>
  BACKENDS[target.kind](target, trace, credential);

/** Errors carry no secret: the run's, and the keys this delivery sends. */
function scrubbed(trace: Trace, secrets: Iterable<string>): Trace {
  const list = [...secrets];
  if (!trace.error && !trace.spans.some((s) => s.error)) return trace;
  return {
    ...trace,
    error: trace.error && redact(trace.error, list),
    spans: trace.spans.map((s) => (s.error ? { ...s, error: redact(s.error, list) } : s)),
  };
}

async function sendOne(
  target: TraceTarget,
  trace: Trace,
  deps: { db: Db; env: Env },
  signal: AbortSignal,
  secrets: Set<string>,
): Promise<void> {
  const what = `${target.kind} trace ${trace.id}`;
  let credential: Record<string, unknown> = {};
  if (target.credentialId) {
    try {
      credential = await getCredentialData(deps, target.credentialId);
    } catch (err) {
      console.error(
        `[tracing] ${what} not sent: credential ${target.credentialId} could not be read ` +
          `(${err instanceof Error ? err.message : String(err)})`,
      );
      return;
    }
  } else if (target.kind !== "otlp") {
    console.error(`[tracing] ${what} not sent: the analytic entry names no credentialId`);
    return;
  }
  const delivery = await deliveryFor(target, scrubbed(trace, secrets), credential);
  if (typeof delivery === "string") {
    console.error(`[tracing] ${what} not sent: ${delivery}`);
    return;
  }
  const policy: EndpointPolicy = { field: delivery.field, env: deps.env };
  for (const body of delivery.bodies) {
    try {
      const res = await endpointFetch(
        delivery.url,
        { method: "POST", headers: { "content-type": delivery.contentType ?? "application/json", ...delivery.headers }, body, signal },
        policy,
      );
      const refusals = res.ok ? delivery.refusals : undefined;
      const answer = refusals ? await res.json().catch(() => undefined) : undefined;
      if (!refusals) await res.body?.cancel().catch(() => undefined);
      if (!res.ok) {
        console.error(`[tracing] ${what}: ${new URL(delivery.url).origin} answered ${res.status}`);
        return;
      }
      // A 2xx that dropped events is a trace (partly) lost: reported like a refusal, then the next body goes.
      const refused = refusals?.(answer) ?? [];
      if (refused.length) {
        const shown = redact(refused.slice(0, 3).join("; ").slice(0, 1000), [...secrets, ...Object.values(delivery.headers)]);
        console.error(`[tracing] ${what}: ${new URL(delivery.url).origin} answered ${res.status} but refused ${refused.length}: ${shown}`);
      }
    } catch (err) {
      const why = signal.aborted
        ? `no answer within ${traceTimeoutMs(deps.env)} ms (TRACE_TIMEOUT_MS)`
        : err instanceof Error
          ? err.message
          : String(err);
      console.error(
        `[tracing] ${what} not sent to ${new URL(delivery.url).origin}: ${redact(why, [...secrets, ...Object.values(delivery.headers)])}`,
      );
      return;
    }
  }
}

/** Every target at once, within the time limit; never throws. */
export async function sendTrace(deps: { db: Db; env: Env }, targets: TraceTarget[], trace: Trace, secrets: Set<string>): Promise<void> {
  const signal = AbortSignal.timeout(traceTimeoutMs(deps.env));
  await Promise.all(
    targets.map((t) =>
      sendOne(t, trace, deps, signal, secrets).catch((err: unknown) => console.error(`[tracing] ${t.kind}: ${String(err)}`)),
    ),
  );
}
