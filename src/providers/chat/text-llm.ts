// Flowise's "LLMs" (text in, text out: HuggingFace Inference, Replicate) as chat models, since every
// chain of ours takes a chat model: the messages become one prompt (a lone human message as it is,
// else "Role: text" lines ending with "Assistant:"), the completion becomes the AI message.
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { EndpointPolicy } from "../../lib/outbound";
import { ChatModelBase, type RemoteModelFields } from "./base";
import { redactError } from "../../lib/redact";
import { type Deadline, callWithRetry } from "../../lib/run-control";
import { providerFetch, readJson } from "./http";
import { contentText } from "./messages";

const ROLE_NAMES: Record<string, string> = { system: "System", human: "User", ai: "Assistant", tool: "Tool" };

export function promptOf(messages: BaseMessage[]): string {
  if (messages.length === 1 && messages[0].getType() === "human") return contentText(messages[0].content);
  const lines = messages.map((m) => `${ROLE_NAMES[m.getType()] ?? "User"}: ${contentText(m.content)}`);
  return `${lines.join("\n")}\nAssistant:`;
}

export abstract class TextLLM extends ChatModelBase {
  abstract readonly provider: string;
  /** The outbound policy every request of `complete` goes under (providerFetch). */
  protected readonly policy: EndpointPolicy;

  constructor(fields: RemoteModelFields) {
    super(fields);
    this.policy = fields.policy;
  }

  /** Values scrubbed from every error that leaves (a provider may echo the key it was sent): none unless a model says. */
  protected secrets(): string[] {
    return [];
  }

  /** One completion of `prompt`; fetches under `deadline` (throw ApiError 502 / RetryableProviderError). */
  protected abstract complete(prompt: string, deadline: Deadline, options: this["ParsedCallOptions"]): Promise<string>;

  async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const prompt = promptOf(messages);
    const secrets = this.secrets();
    const rules = {
      timeoutMs: this.timeoutMs,
      signal: this.signalOf(options),
      provider: this.provider,
      scrub: (err: Error) => redactError(err, secrets),
    };
    return callWithRetry(rules, async (deadline) => {
      const text = await this.complete(prompt, deadline, options);
      return { generations: [{ text, message: new AIMessage(text) }] };
    });
  }

  /** One request of `complete` (providerFetch under the model's policy): its JSON answer. */
  protected async fetchJson<T>(url: string, init: RequestInit, deadline: Deadline): Promise<T> {
    return readJson<T>(await providerFetch(url, init, deadline, this.provider, this.policy), deadline, this.provider);
  }
}
