// Flowise's artifacts marker: a tool (codeInterpreterE2B) answers `<text>` + ARTIFACTS_PREFIX + JSON of
// [{type, data}]; an agent gives the model only the text and keeps the artifacts for the message.
// Only tools marked here may answer artifacts: any other tool's output (a fetched page, an MCP server's
// answer) is text the model reads whole, so nothing outside edgeflow can add an html artifact to a chat.
export const ARTIFACTS_PREFIX = "\n\n----FLOWISE_ARTIFACTS----\n\n";

const producers = new WeakSet<object>();

/** Marks `tool` as one whose output may carry artifacts after the marker. */
export function producesArtifacts<T extends object>(tool: T): T {
  producers.add(tool);
  return tool;
}

/** A tool's output split at the marker when `tool` may answer artifacts: the text for the model, the artifacts. */
export function splitArtifacts(output: string, tool: object | undefined): { text: string; artifacts: unknown[] } {
  const at = tool && producers.has(tool) ? output.indexOf(ARTIFACTS_PREFIX) : -1;
  if (at < 0) return { text: output, artifacts: [] };
  let artifacts: unknown = [];
  try {
    artifacts = JSON.parse(output.slice(at + ARTIFACTS_PREFIX.length));
  } catch {
    artifacts = [];
  }
  return { text: output.slice(0, at), artifacts: Array.isArray(artifacts) ? artifacts : [artifacts] };
}
