// chainTool: a chain (llmChain, conversationChain, …) answering the tool's `input`.
import { DynamicStructuredTool } from "@langchain/core/tools";
import { z } from "zod";
import { fail } from "../../errors";
import { bool, isObject, str } from "../core/inputs";
import { toolName } from "./names";
import { nested } from "./nested";
import type { ToolDeps } from "./types";

export async function chainTool(inputs: Record<string, unknown>, { ctx, label, answer }: ToolDeps): Promise<DynamicStructuredTool> {
  const chain = inputs.baseChain;
  const kind = isObject(chain) && typeof chain.kind === "string" ? chain.kind : undefined;
  if (!kind) throw fail("INVALID_FLOW", `${label} needs a chain connected to its baseChain input`);
  const name = str(inputs.name);
  const description = str(inputs.description);
  if (!name) throw fail("INVALID_FLOW", `${label} needs a name`);
  if (!description) throw fail("INVALID_FLOW", `${label} needs a description (the model reads it to decide when to use the tool)`);
  return new DynamicStructuredTool({
    name: toolName(name),
    description,
    returnDirect: bool(inputs.returnDirect),
    schema: z.object({ input: z.string().describe("what to ask the chain") }),
    // Under the tool's run: a trace shows the chain's model (and retriever) calls inside the tool call.
    func: nested(async ({ input }: { input: string }) => {
      if (!answer) throw new Error(`${label}: a ${kind} cannot answer as a tool here`);
      return answer(chain, { ...ctx, question: input });
    }),
  });
}
