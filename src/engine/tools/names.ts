/** A tool name the chat completions API accepts: ^[a-zA-Z0-9_-]{1,64}$. */
export function toolName(name: string): string {
  return (
    name
      .trim()
      .replace(/[^a-zA-Z0-9_-]+/g, "_")
      .replace(/^_+|_+$/g, "")
      .slice(0, 64) || "tool"
  );
}
