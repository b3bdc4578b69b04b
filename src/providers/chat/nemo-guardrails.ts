// chatNemoGuardrails: a NeMo Guardrails server, as Flowise's NemoClient calls it — POST
// {baseUrl}/v1/chat/completions {config_id, messages: [{role, content}]} (human and system messages
// as "user", every other one as "assistant", content as text), answered {messages: [{role, content}]};
// the first message is the answer. No key, no sampling inputs, no streaming (Flowise's node answers
// in one piece; a streamed run gets the whole answer as one token). The base URL is under the
// outbound policy ("chatNemoGuardrails baseUrl"); a failure is a 502 with the server's message.
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { fail } from "../../errors";
import { str } from "../../lib/inputs";
import { type EndpointPolicy, checkEndpoint } from "../../lib/outbound";
import { callWithRetry, timeoutOf } from "../../lib/run-control";
import { ChatModelBase, type RemoteModelFields } from "./base";
import { httpUrl } from "./endpoints";
import { postJson, readJson } from "./http";
import { contentText } from "./messages";
import type { ChatModelDefinition } from "./types";

const PROVIDER = "NeMo Guardrails";

export interface NemoGuardrailsFields extends RemoteModelFields {
  /** The full …/v1/chat/completions URL. */
  url: string;
  configurationId: string;
}

export class NemoGuardrailsChatModel extends ChatModelBase {
  readonly url: string;
  readonly configurationId: string;
  private readonly policy: EndpointPolicy;

  static lc_name() {
    return "NemoGuardrailsChatModel";
  }

  constructor(fields: NemoGuardrailsFields) {
    super(fields);
    this.url = fields.url;
    this.configurationId = fields.configurationId;
    this.policy = fields.policy;
  }

  _llmType(): string {
    return "nemo-guardrails";
  }

  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    const body = {
      config_id: this.configurationId,
      messages: messages.map((m) => ({
        role: m.getType() === "human" || m.getType() === "system" ? "user" : "assistant",
        content: contentText(m.content),
      })),
    };
    const rules = { timeoutMs: this.timeoutMs, signal: this.signalOf(options), provider: PROVIDER };
    const answer = await callWithRetry(rules, async (deadline) =>
      readJson(
        await postJson({ url: this.url, headers: { accept: "application/json" }, body }, deadline, PROVIDER, this.policy),
        deadline,
        PROVIDER,
      ),
    );
    const list = (answer as { messages?: unknown }).messages;
    if (!Array.isArray(list) || !list.length) throw fail("MODEL_FAILED", `${PROVIDER} answered without messages`);
    const generations = list.map((m: { content?: unknown }) => {
      const text = contentText(m?.content ?? "");
      return { text, message: new AIMessage(text) };
    });
    await runManager?.handleLLMNewToken(generations[0].text);
    return { generations };
  }
}

/** Flowise's chatNemoGuardrails: configurationId and baseUrl, both required. */
export const chatNemoGuardrails: ChatModelDefinition = {
  name: "chatNemoGuardrails",
  build(config, deps) {
    const base = str(config.baseUrl);
    if (!base) throw fail("INVALID_FLOW", "chatNemoGuardrails needs its Base URL (the NeMo Guardrails server, e.g. http://host:8000)");
    const configurationId = str(config.configurationId);
    if (!configurationId) throw fail("INVALID_FLOW", "chatNemoGuardrails needs its Configuration ID (a config of the server)");
    const field = "chatNemoGuardrails baseUrl";
    const trimmed = httpUrl(base, field);
    const url = /\/v1\/chat\/completions$/.test(trimmed) ? trimmed : `${trimmed}/v1/chat/completions`;
    return new NemoGuardrailsChatModel({
      url,
      policy: checkEndpoint(url, field, deps.env),
      configurationId,
      model: configurationId,
      timeoutMs: timeoutOf(config.timeout),
      signal: deps.signal,
    });
  },
};
