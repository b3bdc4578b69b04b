// An MCP tool result as the text the model reads: text parts as they are, a resource's text (or its
// URI), other parts (images, audio) named rather than pasted; structured content when there is no
// text. Cut at a size a model can take.
const MAX_OUTPUT_CHARS = 20_000;

interface Part {
  type: string;
  text?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; text?: string; mimeType?: string };
}

function partText(part: Part): string {
  switch (part.type) {
    case "text":
      return part.text ?? "";
    case "resource":
      return part.resource?.text ?? `[resource ${part.resource?.uri ?? ""}]`;
    case "resource_link":
      return `[resource ${part.name ?? ""} ${part.uri ?? ""}]`.replace(/\s+\]/, "]");
    default:
      return `[${part.type}${part.mimeType ? ` ${part.mimeType}` : ""}]`;
  }
}

export function mcpResultText(result: { content?: unknown; structuredContent?: unknown; toolResult?: unknown }): string {
  const parts = Array.isArray(result.content) ? (result.content as Part[]) : [];
  let text = parts.map(partText).filter(Boolean).join("\n");
  if (!text && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (!text && result.toolResult !== undefined) text = JSON.stringify(result.toolResult); // the 2024-10-07 form
  return text.length > MAX_OUTPUT_CHARS ? `${text.slice(0, MAX_OUTPUT_CHARS)}… [cut]` : text;
}
