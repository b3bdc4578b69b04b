// Agent: a chat model with tools (agentTools: the engine's tool nodes, stored custom tools through
// the QuickJS sandbox) and knowledge (document stores / vector stores as retriever tools whose
// documents become sourceDocuments), memory as the LLM node, the tool loop of agent-loop.ts, and
// optional structured output (the final answer converted, as a fenced JSON block). Tools marked
// "requires human input" pause the run before they are called. Errors: "Error in Agent node: …".
import { fail } from "../../../errors";
import { jsonSchemaOf } from "../../core/zod-dsl";
import type { SourceDocument } from "../../core/types";
import { type AgentTool, maxIterationsOf, runToolLoop } from "../agent-loop";
import { chatModel } from "../components";
import { imageResolver, pastWithImages, questionImages } from "../images";
import { conversation, inputHistory, memorySettings, ownMessages } from "../memory";
import { toLangChain } from "../messages";
import { afterStream, replyOutput } from "../model-call";
import type { AgentflowNodeDef } from "../node-types";
import { invokeStructured, structuredSchema } from "../structured";
import { knowledgeTools, selectedTools } from "../tools";
import type { AgentflowMessage } from "../types";
import { bool, historyName, isAbort, isObject, listOf, num, prefixed } from "../util";
import { ownerOf, stateAfter, streamsAnswer, withoutEmpty } from "./common";

const BUILT_IN = ["agentToolsBuiltInOpenAI", "agentToolsBuiltInGemini", "agentToolsBuiltInAnthropic"];

function builtInTools(inputs: Record<string, unknown>): string[] {
  return BUILT_IN.flatMap((k) => {
    const v = inputs[k];
    if (Array.isArray(v)) return v.map(String);
    if (typeof v === "string" && v.trim())
      return v.trim().startsWith("[")
        ? listOf<string>(v).map(String)
        : v
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean);
    return [];
  });
}

export const agentNode: AgentflowNodeDef = {
  name: "agentAgentflow",
  variableParams: ["agentMessages", "agentUserMessage", "agentStructuredOutput", "agentUpdateState"],
  pauses: (result) => result?.output?.isWaitingForHumanInput === true,
  async run(args) {
    const { node, inputs, input, rt } = args;
    try {
      const owner = ownerOf(node);
      const config = isObject(inputs.agentModelConfig) ? inputs.agentModelConfig : {};
      const model = await chatModel(rt.ctx, inputs.agentModel, config, owner, "agentModel");
      const builtIn = builtInTools(inputs);
      if (builtIn.length)
        throw fail(
          "UNKNOWN_NODE",
          `${owner}: provider built-in tools (${builtIn.join(", ")}) are not available in edgeflow; use tools from agentTools`,
        );

      const sourceDocuments: SourceDocument[] = [];
      const toolCtx = { ...rt.ctx, question: input ?? "" };
      const tools: AgentTool[] = [];
      for (const row of listOf(inputs.agentTools).filter(isObject)) {
        const name = String(row.agentSelectedTool ?? "");
        for (const tool of await selectedTools(toolCtx, name, row.agentSelectedToolConfig, owner)) {
          tools.push({ tool, requiresHumanInput: bool(row.agentSelectedToolRequiresHumanInput), component: name });
        }
      }
      for (const tool of await knowledgeTools(toolCtx, inputs, node.id, owner, (docs) => sourceDocuments.push(...docs))) {
        tools.push({ tool, requiresHumanInput: false, component: `knowledge:${tool.name}` });
      }
      const availableTools = tools.map(({ tool, component }) => ({
        name: tool.name,
        description: tool.description,
        schema: safeSchema(tool.schema),
        toolNode: {
          label: component.startsWith("knowledge:") ? "Retriever Tool" : component,
          name: component.startsWith("knowledge:") ? "retrieverTool" : component,
        },
      }));

      const memory = memorySettings(inputs, "agent");
      const own = ownMessages(inputs.agentMessages);
      const userMessage = typeof inputs.agentUserMessage === "string" && inputs.agentUserMessage ? inputs.agentUserMessage : undefined;
      const schema = structuredSchema(inputs.agentStructuredOutput, owner);
      const answers = streamsAnswer(args);
      const live = answers && config.streaming !== false && config.streaming !== "false" && !schema;
      const maxIterations = maxIterationsOf(num(inputs.agentMaxIterations) ?? num(inputs.maxIterations));

      const start = rt.now();
      const resume = rt.humanInput ? resumeOf(rt.humanInput, rt.humanInputAction?.data?.input?.messages, owner) : undefined;
      const images = resume ? undefined : questionImages(rt, config);
      const past = resume ? [] : await pastWithImages(rt, config, memory);
      const messages = resume ? [] : await conversation(rt, own, input, memory, userMessage, model, images, past);
      const artifacts: unknown[] = [];
      const onArtifacts = (a: unknown[]) => artifacts.push(...a);
      const loop = await runToolLoop(
        { model, tools, messages, maxIterations, live, rt, onArtifacts, images: imageResolver(rt, config) },
        resume,
      );

      let content = loop.content;
      let structured: Record<string, unknown> | undefined;
      if (schema && !loop.waitingForHumanInput) {
        const prompt = [{ role: "user" as const, content: `Convert the following response to the structured output format: ${content}` }];
        structured = (await invokeStructured(model, toLangChain(prompt), schema, owner, rt.signal)).value;
        content = `\`\`\`json\n${JSON.stringify(structured, null, 2)}\n\`\`\``;
      }
      if (answers && !loop.waitingForHumanInput) {
        if (!live) rt.emit.token(content);
        if (loop.usedTools.length) rt.emit.event("usedTools", loop.usedTools);
        if (sourceDocuments.length) rt.emit.event("sourceDocuments", sourceDocuments);
        if (artifacts.length) rt.emit.event("artifacts", artifacts);
        if (live) afterStream(loop.reply, rt.emit.event);
      }

      const output: Record<string, unknown> = { ...replyOutput(loop.reply, start, rt.now()), content };
      const usage = loop.reply.usage_metadata;
      if (usage || loop.toolCallTokens)
        output.usageMetadata = {
          ...(usage ?? {}),
          total_tokens: (usage?.total_tokens ?? 0) + loop.toolCallTokens,
          tool_call_tokens: loop.toolCallTokens,
        };
      if (structured) for (const [k, v] of Object.entries(structured)) if (v !== undefined && v !== null) output[k] = v;
      if (loop.usedTools.length) output.usedTools = loop.usedTools;
      if (sourceDocuments.length) output.sourceDocuments = sourceDocuments;
      if (artifacts.length) output.artifacts = artifacts;
      if (availableTools.length) output.availableTools = availableTools;
      if (loop.waitingForHumanInput) output.isWaitingForHumanInput = true;

      const { agentMessages: _, humanInput: __, ...rest } = inputs;
      const reply: AgentflowMessage = {
        role: inputs.agentReturnResponseAs === "assistantMessage" ? "assistant" : "user",
        content,
        name: historyName(node.data.label, node.id),
      };
      if (loop.usedTools.length) reply.additional_kwargs = { usedTools: loop.usedTools };
      return {
        id: node.id,
        name: node.data.name,
        input: { messages: loop.messages, ...withoutEmpty(rest) },
        output,
        state: stateAfter(rt.state, inputs.agentUpdateState, structured ? JSON.stringify(structured, null, 2) : content),
        chatHistory: [...(resume ? [] : inputHistory(rt, own, input, memory.enabled, images)), reply],
      };
    } catch (err) {
      if (isAbort(err, rt.signal)) throw err;
      throw prefixed("Error in Agent node: ", err);
    }
  },
};

function resumeOf(humanInput: { type: string }, checkpoint: unknown, owner: string) {
  if (humanInput.type !== "proceed" && humanInput.type !== "reject") {
    throw fail("INVALID_INPUT", `${owner}: humanInput.type must be "proceed" or "reject", not "${humanInput.type}"`);
  }
  return {
    humanInput: humanInput as { type: "proceed" | "reject" },
    checkpoint: Array.isArray(checkpoint) ? (checkpoint as AgentflowMessage[]) : [],
  };
}

function safeSchema(schema: unknown): unknown {
  try {
    return schema && typeof schema === "object" && "_zod" in (schema as object) ? jsonSchemaOf(schema as never) : schema;
  } catch {
    return undefined;
  }
}
