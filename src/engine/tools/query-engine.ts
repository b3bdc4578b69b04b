// queryEngineToolLlamaIndex: a LlamaIndex query engine (queryEngine, subQuestionQueryEngine) as a
// tool taking `query`, as LlamaIndex's QueryEngineTool does; the engine's answer text is the result.
import { DynamicStructuredTool } from "@langchain/core/tools";
import { z } from "zod";
import { fail } from "../../errors";
import { str } from "../core/inputs";
import { toolName } from "./names";
import { nested } from "./nested";
import type { ToolDeps } from "./types";

const kindOf = (v: unknown): string | undefined => {
  const kind = v && typeof v === "object" ? (v as { kind?: unknown }).kind : undefined;
  return typeof kind === "string" ? kind : undefined;
};

export async function queryEngineTool(inputs: Record<string, unknown>, { ctx, label, answer }: ToolDeps): Promise<DynamicStructuredTool> {
  const engine = inputs.baseQueryEngine;
  const kind = kindOf(engine);
  if (!kind) throw fail("INVALID_FLOW", `${label} needs a query engine connected to its baseQueryEngine input`);
  const name = str(inputs.toolName);
  const description = str(inputs.toolDesc);
  if (!name) throw fail("INVALID_FLOW", `${label} needs a toolName`);
  if (!description) throw fail("INVALID_FLOW", `${label} needs a toolDesc (the model reads it to decide when to use the tool)`);
  return new DynamicStructuredTool({
    name: toolName(name),
    description,
    schema: z.object({ query: z.string().describe("The query to search for") }),
    // Under the tool's run: a trace shows the engine's model and retriever calls inside the tool call.
    func: nested(async ({ query }: { query: string }) => {
      if (!answer) throw new Error(`${label}: a ${kind} cannot answer as a tool here`);
      return answer(engine, { ...ctx, question: query });
    }),
  });
}
