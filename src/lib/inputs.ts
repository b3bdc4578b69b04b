// Small readers for inputs as Flowise stores them (numbers often as strings, "" for unset): node
// inputs in the engine, provider configs in the registries; and for JSON values of unknown shape.

/** A plain object (not null, not an array): what a JSON object parses to. */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A non-blank string, trimmed (names, ids, URLs, settings); undefined for "", whitespace or a non-string. */
export const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v.trim() : undefined);

/** A non-blank string as written, its whitespace kept (prompts, code, model output); undefined otherwise. */
export const nonBlank = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v : undefined);

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
  if (isObject(v)) return v;
  if (typeof v === "string" && v.trim()) {
    try {
      const parsed: unknown = JSON.parse(v);
      return isObject(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** List inputs arrive as arrays; a single connection may arrive alone. */
export const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null || v === "" ? [] : [v]);
