// awsBedrock: Flowise's text LLM over AWS Bedrock (category "LLMs"). Flowise's node is LangChain's
// community Bedrock LLM, which calls InvokeModel with a body shaped per model family (Titan's
// inputText, Claude's messages, Llama's prompt…) and knows only some families. Here the prompt goes
// through the Converse API instead, which every Bedrock text model answers in one shape: the
// messages become one user prompt (text-llm.ts promptOf, as LangChain formats a chat prompt for a
// text LLM), the answer's text is the completion. Same inputs, credential and defaults as Flowise
// (temperature 0.7, max_tokens_to_sample 200); a text LLM calls no tools.
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { ChatGenerationChunk, ChatResult } from "@langchain/core/outputs";
import { fail } from "../../errors";
import { num, str } from "../../lib/inputs";
import { checkEndpoint } from "../../lib/outbound";
import { awsCredentials, bedrockBase, regionOf } from "../aws/config";
import { BedrockChatModel } from "./bedrock";
import { sampling } from "./build";
import { promptOf } from "./text-llm";
import type { ChatModelDefinition } from "./types";

class BedrockTextModel extends BedrockChatModel {
  static lc_name() {
    return "BedrockTextModel";
  }

  override bindTools(): never {
    throw fail("INVALID_FLOW", "awsBedrock is a text LLM and cannot call tools: use AWS ChatBedrock (awsChatBedrock) for an agent");
  }

  override _generate(messages: BaseMessage[], options: this["ParsedCallOptions"], run?: CallbackManagerForLLMRun): Promise<ChatResult> {
    return super._generate([new HumanMessage(promptOf(messages))], options, run);
  }

  override _streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    run?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    return super._streamResponseChunks([new HumanMessage(promptOf(messages))], options, run);
  }
}

/** Flowise's awsBedrock: region, model (customModel wins), temperature, max_tokens_to_sample. */
export const awsBedrockLLM: ChatModelDefinition = {
  name: "awsBedrock",
  category: "LLMs",
  async build(config, deps) {
    const node = "awsBedrock";
    const region = regionOf(config, node);
    const base = bedrockBase(config, region, node, deps);
    const model = str(config.customModel) ?? str(config.model);
    if (!model) throw fail("INVALID_FLOW", "awsBedrock needs a Model Name (model) or a Custom Model Name (customModel)");
    const s = sampling(config);
    return new BedrockTextModel({
      baseUrl: base.value,
      policy: checkEndpoint(base.value, base.field, deps.env),
      region,
      credentials: await awsCredentials(config, deps, node),
      model,
      ...s,
      temperature: s.temperature ?? 0.7,
      maxTokens: num(config.max_tokens_to_sample) ?? 200,
      signal: deps.signal,
    });
  },
};
