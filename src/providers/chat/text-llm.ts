// Flowise's "LLMs" (text in, text out: HuggingFace Inference, Replicate) as chat models, since every
// chain of ours takes a chat model: the messages become one prompt (a lone human message as it is,
// else "Role: text" lines ending with "Assistant:"), the completion becomes the AI message.
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { EndpointPolicy } from "../../lib/outbound";
import { ChatModelBase, type RemoteModelFields } from "./base";
import { Deadline, RetryableProviderError } from "../../lib/run-control";
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

  /** One completion of `prompt`; fetches under `deadline` (throw ApiError 502 / RetryableProviderError). */
  protected abstract complete(prompt: string, deadline: Deadline, options: this["ParsedCallOptions"]): Promise<string>;

  async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const prompt = promptOf(messages);
    const signal = this.signalOf(options);
    for (let attempt = 0; ; attempt++) {
      const deadline = new Deadline(this.timeoutMs, signal);
      try {
        const text = await this.complete(prompt, deadline, options);
        return { generations: [{ text, message: new AIMessage(text) }] };
      } catch (err) {
        const failure = deadline.failure(err, this.provider);
        if (failure instanceof RetryableProviderError && attempt === 0 && !signal?.aborted) continue;
        throw failure;
      } finally {
        deadline.done();
      }
    }
  }
}
