// Small readers for node inputs as Flowise stores them (numbers often as strings, "" for unset).
import type { FlowNode, RunContext } from "../types";

export const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v.trim() : undefined);

export function num(v: unknown): number | undefined {
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  if (typeof v === "string" && v.trim()) {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

export function bool(v: unknown, fallback = false): boolean {
  if (typeof v === "boolean") return v;
  if (v === "true") return true;
  if (v === "false") return false;
  return fallback;
}

/** An input that may be a JSON string or already an object. */
export function jsonObject(v: unknown): Record<string, unknown> | undefined {
  if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  if (typeof v === "string" && v.trim()) {
    try {
      const parsed = JSON.parse(v);
      return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The node's credential values ({} when it names none). */
export async function credentialOf(node: FlowNode, inputs: Record<string, unknown>, ctx: RunContext): Promise<Record<string, unknown>> {
  const id = str(node.data.credential) ?? str(inputs.credential) ?? str(inputs.FLOWISE_CREDENTIAL_ID);
  return id ? ctx.getCredential(id) : {};
}

/** List inputs arrive as arrays; a single connection may arrive alone. */
export const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null || v === "" ? [] : [v]);
