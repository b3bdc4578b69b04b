// Where an openAPIToolkit's spec comes from, as Flowise 3.1.4's node reads it — inputType "file"
// (openApiFile; yamlFile in older flows: a data URI or the text itself) or "link" (openApiLink,
// fetched under the outbound policy, capped and timed) — and the canvas's Server and Available
// Endpoints options (load methods listServers and listEndpoints) read from it.
import { fail } from "../../../errors";
import type { RunContext } from "../../core/ports";
import { str } from "../../core/inputs";
import { callService } from "../service";
import { type OpenApiSpec, parseSpec, specText } from "./spec";

type SpecContext = Pick<RunContext, "signal" | "runtime">;

/** The node's spec, parsed: 400 naming the node when it is missing or not an OpenAPI document; 502 a link that fails. */
export async function loadSpec(inputs: Record<string, unknown>, ctx: SpecContext, label: string): Promise<OpenApiSpec> {
  const link = str(inputs.openApiLink);
  if (str(inputs.inputType) === "link") {
    if (!link) throw fail("INVALID_FLOW", `${label} needs its OpenAPI Link`);
    const res = await callService({ service: `${label}'s OpenAPI link`, url: link, policy: ctx.runtime.outbound }, ctx).catch(
      (err: unknown) => {
        throw fail("UPSTREAM_FAILED", `${label}: ${err instanceof Error ? err.message : String(err)}`);
      },
    );
    if (!res.ok) throw fail("UPSTREAM_FAILED", `${label}: its OpenAPI link answered ${res.status}`);
    return parseSpec(res.text, label);
  }
  return parseSpec(specText(inputs.openApiFile ?? inputs.yamlFile ?? inputs.openApiSpec, label), label);
}

/** Flowise's selectedEndpoints: a JSON array text or an array; empty means every operation. */
export function selectedEndpoints(raw: unknown): Set<string> {
  let list: unknown = raw;
  if (typeof raw === "string") {
    try {
      list = raw.trim() ? JSON.parse(raw) : [];
    } catch {
      list = [];
    }
  }
  return new Set(Array.isArray(list) ? list.filter((e): e is string => typeof e === "string" && e !== "error") : []);
}

export interface SpecOption {
  label: string;
  name: string;
  description?: string;
}

/**
 * The canvas's options: the spec's servers, or its operations by Flowise's endpoint names (sorted).
 * A spec that cannot be read answers Flowise's single "No … Found" option (name `error`), whose
 * description says why.
 */
export async function openApiOptions(
  inputs: Record<string, unknown>,
  which: "servers" | "endpoints",
  ctx: SpecContext,
  label: string,
): Promise<SpecOption[]> {
  const none = (why: string): SpecOption[] => [
    { label: which === "servers" ? "No Servers Found" : "No Endpoints Found", name: "error", description: why },
  ];
  let spec: OpenApiSpec;
  try {
    spec = await loadSpec(inputs, ctx, label);
  } catch (err) {
    return none(err instanceof Error ? err.message : String(err));
  }
  if (which === "servers") {
    return spec.servers.length ? spec.servers.map((url) => ({ label: url, name: url })) : none("The OpenAPI spec defines no servers");
  }
  return spec.operations
    .map((op) => ({ label: op.endpoint, name: op.endpoint, description: op.description }))
    .sort((a, b) => a.label.localeCompare(b.label));
}
