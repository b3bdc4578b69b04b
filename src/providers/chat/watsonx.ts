// Flowise's IBM watsonx.ai nodes: chatIBMWatsonx on /ml/v1/text/chat (and chat_stream for streaming;
// OpenAI's message, tool and answer shapes with model_id and project_id in the body), and the ibmWatsonx
// text LLM on /ml/v1/text/generation ({input, parameters} → results[0].generated_text). Where calls go
// and how they sign in: providers/ibm/watsonx.ts.
import type { BaseMessage } from "@langchain/core/messages";
import { fail } from "../../errors";
import { num, str } from "../../lib/inputs";
import type { Deadline } from "../../lib/run-control";
import { WATSONX_PROVIDER, type WatsonxTarget, watsonxTarget, watsonxUrl } from "../ibm/watsonx";
import type { RemoteModelFields } from "./base";
import { sampling } from "./build";
import type { WireRequest } from "./http";
import type { WireMessage } from "./messages";
import { OpenAICompatibleChatModel } from "./openai-compatible";
import { TextLLM } from "./text-llm";
import type { ChatModelDefinition } from "./types";

export class WatsonxChatModel extends OpenAICompatibleChatModel {
  constructor(
    fields: ConstructorParameters<typeof OpenAICompatibleChatModel>[0],
    private readonly target: WatsonxTarget,
  ) {
    super(fields);
  }

  _llmType(): string {
    return "ibm-watsonx-chat";
  }

  protected override request(messages: BaseMessage[], options: this["ParsedCallOptions"], stream: boolean): WireRequest {
    const req = super.request(messages, options, stream);
    return { ...req, url: watsonxUrl(this.target, stream ? "chat_stream" : "chat") };
  }

  /** Chat completions' body with watsonx's names: model_id and project_id, tool_choice_option for a mode. */
  protected override body(messages: BaseMessage[], options: this["ParsedCallOptions"], stream: boolean): Record<string, unknown> {
    const { model: _model, stream: _stream, tool_choice, messages: wire, ...rest } = this.requestBody(messages, options, stream);
    const choice = typeof tool_choice === "string" ? { tool_choice_option: tool_choice } : tool_choice ? { tool_choice } : {};
    // watsonx's assistant content is a string, never null: a turn that only calls tools leaves it out.
    const sent = (wire as WireMessage[]).map(({ content, ...m }) => (content === null ? m : { ...m, content }));
    return { ...rest, messages: sent, ...choice, model_id: this.model, project_id: this.target.projectId };
  }
}

export const chatIBMWatsonx: ChatModelDefinition = {
  name: "chatIBMWatsonx",
  async build(config, deps) {
    const model = str(config.modelName) ?? str(config.model);
    if (!model) throw fail("INVALID_FLOW", "chatIBMWatsonx needs its Model (e.g. ibm/granite-3-8b-instruct)");
    const target = await watsonxTarget(config, "chatIBMWatsonx", deps);
    return new WatsonxChatModel(
      {
        endpoint: { url: watsonxUrl(target, "chat"), headers: {}, provider: WATSONX_PROVIDER, field: "ibmWatsonx serviceUrl" },
        policy: target.policy,
        auth: target.auth,
        model,
        ...sampling(config),
        frequencyPenalty: num(config.frequencyPenalty),
        presencePenalty: num(config.presencePenalty),
        signal: deps.signal,
      },
      target,
    );
  },
};

interface WatsonxLLMFields extends RemoteModelFields {
  target: WatsonxTarget;
  parameters: Record<string, unknown>;
}

export class WatsonxLLM extends TextLLM {
  readonly provider = WATSONX_PROVIDER;
  private readonly target: WatsonxTarget;
  private readonly parameters: Record<string, unknown>;

  constructor(fields: WatsonxLLMFields) {
    super(fields);
    this.target = fields.target;
    this.parameters = fields.parameters;
  }

  _llmType(): string {
    return "ibm-watsonx-generation";
  }

  protected async complete(prompt: string, deadline: Deadline): Promise<string> {
    const headers = { "content-type": "application/json", accept: "application/json", ...(await this.target.auth(deadline)) };
    const body = { input: prompt, model_id: this.model, project_id: this.target.projectId, parameters: this.parameters };
    const json = await this.fetchJson<{ results?: Array<{ generated_text?: unknown }> }>(
      watsonxUrl(this.target, "generation"),
      { method: "POST", headers, body: JSON.stringify(body) },
      deadline,
    );
    const text = json.results?.[0]?.generated_text;
    if (typeof text !== "string") throw fail("MODEL_FAILED", `${this.provider} answered without results[0].generated_text`);
    return text;
  }
}

const compact = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** Flowise's ibmWatsonx: sampling parameters only with decodingMethod "sample", as its node passes them. */
export const ibmWatsonx: ChatModelDefinition = {
  name: "ibmWatsonx",
  category: "LLMs",
  async build(config, deps) {
    const target = await watsonxTarget(config, "ibmWatsonx", deps);
    const decoding = str(config.decodingMethod) ?? "greedy";
    const sample = decoding === "sample";
    const stop = str(config.stopSequence);
    const parameters = compact({
      decoding_method: decoding,
      max_new_tokens: num(config.maxNewTokens),
      min_new_tokens: num(config.minNewTokens),
      repetition_penalty: num(config.repetitionPenalty),
      temperature: sample ? num(config.temperature) : undefined,
      top_p: sample ? num(config.topP) : undefined,
      top_k: sample ? num(config.topK) : undefined,
      stop_sequences: stop ? stop.split(", ") : undefined,
      random_seed: num(config.randomSeed),
      include_stop_sequence: config.includeStopSequence === true || config.includeStopSequence === "true" ? true : undefined,
    });
    return new WatsonxLLM({
      target,
      parameters,
      policy: target.policy,
      model: str(config.modelId) ?? "ibm/granite-13b-instruct-v2",
      timeoutMs: sampling(config).timeoutMs,
      signal: deps.signal,
    });
  },
};

export const watsonxChatModels: ChatModelDefinition[] = [chatIBMWatsonx, ibmWatsonx];
