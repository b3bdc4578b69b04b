// Which tracing backends a chatflow's `analytic` switches on, as Flowise stores it:
// `{"langFuse": {"credentialId", "status": true, "release"?}, "langSmith": {"credentialId",
// "status": true, "projectName"?}, "otlp": {"credentialId"?, "status": true, "endpoint"?},
// "langWatch": {"credentialId", "status": true}, "lunary": {"credentialId", "status": true},
// "arize"|"phoenix": {"credentialId", "status": true, "projectName"?}, "opik": {…, "opikProjectName"?}}`.
// Read on every run, so the common case — no analytic — costs one check.

export type TargetKind = "langfuse" | "langsmith" | "otlp" | "langwatch" | "lunary" | "arize" | "phoenix" | "opik";

export interface TraceTarget {
  kind: TargetKind;
  credentialId?: string;
  /** Langfuse: the trace's release. */
  release?: string;
  /** LangSmith, Arize, Phoenix, Opik (its opikProjectName): the project the runs go to; default "default", as Flowise. */
  projectName?: string;
  /** OTLP: the collector's base URL when no credential gives one. */
  endpoint?: string;
}

const KEYS: Record<string, TargetKind> = {
  langFuse: "langfuse",
  langSmith: "langsmith",
  otlp: "otlp",
  langWatch: "langwatch",
  lunary: "lunary",
  arize: "arize",
  phoenix: "phoenix",
  opik: "opik",
};
const ENABLED = /"status"\s*:\s*(true|"true")/;
const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : undefined);

/** The enabled targets, or undefined (most flows: no analytic at all). A malformed analytic traces nothing. */
export function traceTargets(analytic: string | null | undefined): TraceTarget[] | undefined {
  if (!analytic || !ENABLED.test(analytic)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(analytic);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== "object") return undefined;
  const targets: TraceTarget[] = [];
  for (const [key, kind] of Object.entries(KEYS)) {
    const entry = (parsed as Record<string, unknown>)[key] as Record<string, unknown> | undefined;
    if (!entry || typeof entry !== "object" || (entry.status !== true && entry.status !== "true")) continue;
    targets.push({
      kind,
      credentialId: str(entry.credentialId),
      release: str(entry.release),
      projectName: str(kind === "opik" ? entry.opikProjectName : entry.projectName),
      endpoint: str(entry.endpoint),
    });
  }
  return targets.length ? targets : undefined;
}
