// Tool: calls one tool (or every tool of a toolkit) directly with the given arguments, no model.
// Argument values that look like JSON arrays/objects (brackets possibly escaped) are parsed.
import { ApiError, fail } from "../../../errors";
import { RunAborted } from "../../../lib/run-control";
import { contentText } from "../../../providers/chat/messages";
import type { AgentflowNodeDef } from "../node-types";
import { selectedTools } from "../tools";
import { errorMessage, listOf } from "../util";
import { ownerOf, stateAfter, streamsAnswer } from "./common";

function argValue(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const cleaned = value
    .replace(/\\"/g, '"')
    .replace(/\\\[/g, "[")
    .replace(/\\\]/g, "]")
    .replace(/\\\{/g, "{")
    .replace(/\\\}/g, "}")
    .replace(/\\\\/g, "\\");
  if ((cleaned.startsWith("[") && cleaned.endsWith("]")) || (cleaned.startsWith("{") && cleaned.endsWith("}"))) {
    try {
      return JSON.parse(cleaned);
    } catch {
      return cleaned;
    }
  }
  return cleaned;
}

const outputText = (out: unknown): string =>
  typeof out === "string"
    ? out
    : out && typeof out === "object" && "content" in out
      ? contentText((out as { content: unknown }).content)
      : (JSON.stringify(out, null, 2) ?? "");

export const toolNode: AgentflowNodeDef = {
  name: "toolAgentflow",
  variableParams: ["toolInputArgs", "toolUpdateState"],
  async run(args) {
    const { node, inputs, input, rt } = args;
    const owner = ownerOf(node);
    const name = inputs.toolAgentflowSelectedTool ?? inputs.selectedTool;
    const config = inputs.toolAgentflowSelectedToolConfig ?? inputs.selectedToolConfig;
    const tools = await selectedTools({ ...rt.ctx, question: input ?? "" }, name, config, owner);
    const rows = listOf<{ inputArgName?: unknown; inputArgValue?: unknown }>(inputs.toolInputArgs);
    const toolArgs: Record<string, unknown> = {};
    for (const r of rows) if (typeof r.inputArgName === "string" && r.inputArgName) toolArgs[r.inputArgName] = argValue(r.inputArgValue);
    let content: string;
    try {
      const outputs = await Promise.all(tools.map((t) => t.invoke(toolArgs, { signal: rt.signal })));
      content = outputs.map(outputText).join("\n");
    } catch (err) {
      if (rt.signal.aborted || err instanceof RunAborted) throw new RunAborted();
      if (err instanceof ApiError) throw err;
      throw fail("NODE_FAILED", `${owner}: tool ${String(name)} failed: ${errorMessage(err)}`);
    }
    if (streamsAnswer(args)) rt.emit.token(content);
    return {
      id: node.id,
      name: node.data.name,
      input: { toolInputArgs: rows, selectedTool: name },
      output: { content },
      state: stateAfter(rt.state, inputs.toolUpdateState, content),
    };
  },
};
