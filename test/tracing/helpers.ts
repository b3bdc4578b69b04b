// Flows whose `analytic` sends their traces to the loopback stand-ins of Langfuse, LangSmith, an
// OTLP collector, LangWatch and Lunary (test/standin/tracing.mjs), and readers of what those received.
import { expect, inject } from "vitest";
import { toolAgentFlow as toolAgentFlowData } from "../engine/agents-flows";
import { json, sleep } from "../helpers";

export const tracingUrl = () => inject("tracingUrl");

export const credential = async (credentialName: string, plainDataObj: Record<string, unknown>) =>
  (await json("POST", "/credentials", { body: { name: credentialName, credentialName, plainDataObj } })).id as string;

export const LANGFUSE_KEYS = { langFusePublicKey: "pk-lf-standin", langFuseSecretKey: "sk-lf-standin-secret" };
export const LANGSMITH_KEY = "lsv2_pt_standin_key";

/** All three backends on, at `prefix` paths of the tracing stand-in (`/slow`, `/fail`: a backend that hangs or fails). */
export async function analyticFor(over: { langfuse?: string; langsmith?: string; otlp?: string } = {}): Promise<string> {
  const base = tracingUrl();
  const langfuse = await credential("langfuseApi", { ...LANGFUSE_KEYS, langFuseEndpoint: over.langfuse ?? `${base}/langfuse` });
  const langsmith = await credential("langsmithApi", {
    langSmithApiKey: LANGSMITH_KEY,
    langSmithEndpoint: over.langsmith ?? `${base}/langsmith`,
  });
  const otlp = await credential("otlpApi", {
    otlpEndpoint: over.otlp ?? `${base}/otlp`,
    otlpHeaders: "x-team=edge,authorization=Bearer otlp-standin-token",
  });
  return JSON.stringify({
    langFuse: { credentialId: langfuse, status: true, release: "v1.2.3" },
    langSmith: { credentialId: langsmith, status: true, projectName: "moving-in" },
    otlp: { credentialId: otlp, status: true },
    lunary: { credentialId: "nope", status: false },
  });
}

export const LANGWATCH_KEY = "sk-lw-standin-key-4567";
/** Lunary's project id (its public key) is a UUID: the ingestion API answers 402 to anything else. */
export const LUNARY_APP_ID = "8f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b";

/** LangWatch and Lunary on (or as `status` says), at `prefix` paths of the tracing stand-in. */
export async function langwatchLunaryAnalytic(over: { langwatch?: string; lunary?: string; status?: boolean } = {}): Promise<string> {
  const base = tracingUrl();
  const langwatch = await credential("langwatchApi", {
    langWatchApiKey: LANGWATCH_KEY,
    langWatchEndpoint: over.langwatch ?? `${base}/langwatch`,
  });
  const lunary = await credential("lunaryApi", { lunaryAppId: LUNARY_APP_ID, lunaryEndpoint: over.lunary ?? `${base}/lunary` });
  const status = over.status ?? true;
  return JSON.stringify({ langWatch: { credentialId: langwatch, status }, lunary: { credentialId: lunary, status } });
}

export const OPENAI_KEY = "sk-standin-openai-key-0123";

/** Flowise's Tool Agent template (calculator, buffer memory; serpAPI removed) at the stand-in model. */
export async function toolAgentFlow(extra: Record<string, unknown> = {}): Promise<string> {
  const openai = await credential("openAIApi", { openAIApiKey: OPENAI_KEY });
  const flowData = toolAgentFlowData({ credential: openai, model: { modelName: "gpt-standin" } });
  return (await json("POST", "/chatflows", { body: { name: `tool agent ${crypto.randomUUID().slice(0, 6)}`, flowData, ...extra } })).id;
}

export interface Received {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
  /** The body's size in bytes. */
  size: number;
  /** What the stand-in answered, as the real backend would: a refusal shows here, not in the request. */
  answer?: { status: number; body?: any };
}

/** What the tracing stand-in received whose body contains `marker`, waiting (the trace is sent after the answer). */
export async function receivedWith(marker: string, count: number, timeoutMs = 8000): Promise<Received[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const list = (await (await fetch(`${tracingUrl()}/requests?contains=${encodeURIComponent(marker)}`)).json()) as Received[];
    if (list.length >= count || Date.now() > until) return list;
    await sleep(50);
  }
}

export const byPath = (list: Received[], path: string) => list.filter((r) => r.path === path).map((r) => r);

/**
 * The backend took the request whole: a 2xx, no event Langfuse's 207 lists in `errors`, no Lunary result
 * with `success: false` (both answer 2xx for events they drop).
 */
export function expectAccepted(r: Received): void {
  const what = `${r.path} answered ${JSON.stringify(r.answer)}`;
  expect(r.answer?.status, what).toBeGreaterThanOrEqual(200);
  expect(r.answer?.status, what).toBeLessThan(300);
  expect(r.answer?.body?.errors ?? [], what).toEqual([]);
  expect(
    (r.answer?.body?.results ?? []).filter((x: { success?: boolean }) => x.success === false),
    what,
  ).toEqual([]);
}

/** The one request received at `path`, which the backend accepted (fails the test when there are none or several). */
export const one = (list: Received[], path: string) => {
  const found = byPath(list, path);
  expect(found, `one request to ${path}`).toHaveLength(1);
  expectAccepted(found[0]);
  return found[0];
};

export const marker = () => `m${crypto.randomUUID().slice(0, 8)}`;

/** OTLP attributes as a plain object. */
export const attrs = (span: { attributes: Array<{ key: string; value: Record<string, unknown> }> }) =>
  Object.fromEntries(span.attributes.map((a) => [a.key, Object.values(a.value)[0]]));

/** Where each backend's stand-in takes traces (test/standin/tracing.mjs). */
export const INGESTION = "/langfuse/api/public/ingestion";
export const RUNS = "/langsmith/runs/batch";
export const TRACES = "/otlp/v1/traces";
export const COLLECTOR = "/langwatch/api/collector";
export const INGEST = "/lunary/v1/runs/ingest";
export const PHOENIX = "/phoenix/v1/traces";
