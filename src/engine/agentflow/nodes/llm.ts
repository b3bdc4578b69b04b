// LLM: one chat model call over the assembled messages (§5: history, own messages, memory, user
// message), optionally as structured output (then `content` is the pretty JSON and each key is
// also copied to the output). Streams its tokens when it answers the client; a structured or
// non-streaming model answer goes out as one token. Errors read "Error in LLM node: …".
import { type AIMessage, AIMessageChunk } from "@langchain/core/messages";
import { chatModel } from "../components";
import { imageResolver, pastWithImages, questionImages } from "../images";
import { conversation, inputHistory, memorySettings, ownMessages } from "../memory";
import { toLangChain } from "../messages";
import { afterStream, callChat, replyOutput } from "../model-call";
import type { AgentflowNodeDef } from "../node-types";
import { invokeStructured, structuredSchema } from "../structured";
import { historyName, isAbort, isObject, prefixed } from "../util";
import { ownerOf, stateAfter, streamsAnswer, withoutEmpty } from "./common";

export const llmNode: AgentflowNodeDef = {
  name: "llmAgentflow",
  variableParams: ["llmMessages", "llmUserMessage", "llmStructuredOutput", "llmUpdateState"],
  async run(args) {
    const { node, inputs, input, rt } = args;
    try {
      const owner = ownerOf(node);
      const config = isObject(inputs.llmModelConfig) ? inputs.llmModelConfig : {};
      const model = await chatModel(rt.ctx, inputs.llmModel, config, owner, "llmModel");
      const memory = memorySettings(inputs, "llm");
      const own = ownMessages(inputs.llmMessages);
      const userMessage = typeof inputs.llmUserMessage === "string" && inputs.llmUserMessage ? inputs.llmUserMessage : undefined;
      const images = questionImages(rt, config);
      const messages = await conversation(rt, own, input, memory, userMessage, model, images, await pastWithImages(rt, config, memory));
      const seen = imageResolver(rt, config);
      const schema = structuredSchema(inputs.llmStructuredOutput, owner);
      const answers = streamsAnswer(args);
      const live = answers && config.streaming !== false && config.streaming !== "false" && !schema;

      const start = rt.now();
      let output: Record<string, unknown>;
      let content: string;
      if (schema) {
        const { value, message } = await invokeStructured(model, toLangChain(messages, seen), schema, owner, rt.signal);
        content = JSON.stringify(value, null, 2);
        output = { ...replyOutput(callFree(message), start, rt.now()), content };
        for (const [k, v] of Object.entries(value)) if (v !== undefined && v !== null) output[k] = v;
        if (answers) rt.emit.token(content);
      } else {
        const reply = await callChat(model, toLangChain(messages, seen), rt.signal, live ? rt.emit.token : undefined);
        output = replyOutput(reply, start, rt.now());
        content = String(output.content);
        if (live) afterStream(reply, rt.emit.event);
        else if (answers) rt.emit.token(content);
      }

      const { llmMessages: _, ...rest } = inputs;
      return {
        id: node.id,
        name: node.data.name,
        input: { messages, ...withoutEmpty(rest) },
        output,
        state: stateAfter(rt.state, inputs.llmUpdateState, content),
        chatHistory: [
          ...inputHistory(rt, own, input, memory.enabled, images),
          {
            role: inputs.llmReturnResponseAs === "assistantMessage" ? "assistant" : "user",
            content,
            name: historyName(node.data.label, node.id),
          },
        ],
      };
    } catch (err) {
      if (isAbort(err, rt.signal)) throw err;
      throw prefixed("Error in LLM node: ", err);
    }
  },
};

/** The structured call's message without its forced tool call (it is not a tool the flow called). */
const callFree = (message: AIMessage) =>
  new AIMessageChunk({ content: "", usage_metadata: message.usage_metadata, response_metadata: message.response_metadata, tool_calls: [] });
