/**
 * A tool name every chat API here accepts: the chat completions API's ^[a-zA-Z0-9_-]{1,64}$, and
 * starting with a letter or an underscore, as Vertex AI requires of a function's name (an MCP tool
 * or an OpenAPI operation named "2fa_check" goes as "_2fa_check").
 */
export function toolName(name: string): string {
  const cleaned =
    name
      .trim()
      .replace(/[^a-zA-Z0-9_-]+/g, "_")
      .replace(/^_+|_+$/g, "") || "tool";
  return (/^[a-zA-Z_]/.test(cleaned) ? cleaned : `_${cleaned}`).slice(0, 64);
}
