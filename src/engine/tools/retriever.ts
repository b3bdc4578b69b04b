// retrieverTool: a retriever as an agent's tool; the passages it finds can become the run's
// sourceDocuments (returnSourceDocuments).
import { DynamicStructuredTool } from "@langchain/core/tools";
import { z } from "zod";
import { fail } from "../../errors";
import { bool, str } from "../core/inputs";
import { asSources, requireRetriever, retrieve } from "../core/retrievers";
import { toolName } from "./names";
import type { ToolDeps } from "./types";

export async function retrieverTool(inputs: Record<string, unknown>, { ctx, label }: ToolDeps): Promise<DynamicStructuredTool> {
  const name = str(inputs.name);
  const description = str(inputs.description);
  if (!name) throw fail("INVALID_FLOW", `${label} needs a name`);
  if (!description) throw fail("INVALID_FLOW", `${label} needs a description (the model reads it to decide when to use the tool)`);
  const retriever = requireRetriever(inputs.retriever, label, "retriever");
  const returnSources = bool(inputs.returnSourceDocuments);
  return new DynamicStructuredTool({
    name: toolName(name),
    description,
    schema: z.object({ input: z.string().describe("what to look up in the documents") }),
    // Under the tool's run: a trace nests the retrieval in the tool call (a tool's func gets no run config of its own).
    func: async ({ input }, runManager) => {
      const docs = await retrieve(retriever, input, ctx, runManager?.getChild());
      if (returnSources && docs.length) ctx.addSourceDocuments?.(asSources(docs));
      return docs.length ? docs.map((d) => d.pageContent).join("\n\n") : "No relevant documents were found.";
    },
  });
}
