// The LlamaIndex agents (category Agents): openAIToolAgentLlamaIndex and anthropicAgentLlamaIndex,
// LlamaIndex's OpenAIAgent and AnthropicAgent as Flowise runs them: a LlamaIndex chat model twin
// (chatOpenAI_LlamaIndex, azureChatOpenAI_LlamaIndex, chatAnthropic_LlamaIndex) calling its `tools`
// (queryEngineToolLlamaIndex: a query engine asked `query`) natively until it answers. The loop is
// the Tool Agent's (../agents.ts): `systemMessage` first when set (no default), the memory's turns,
// the question; usedTools as Flowise lists them. Flowise streams the OpenAI agent, never the Anthropic one.
import { fail } from "../../../../errors";
import type { NodeDefinition } from "../../types";
import { type AgentInstance, buildAgent, runAgent } from "../agents";
import { chainCanStream } from "../chains";

const build = buildAgent("");

function llamaIndexAgent(name: string, streams: boolean): NodeDefinition {
  return {
    name,
    category: "Agents",
    build,
    async run(instance, { ctx, sink }) {
      if ((instance as AgentInstance | undefined)?.kind !== "agent") throw fail("INVALID_FLOW", `${name} was not built`);
      return runAgent(instance as AgentInstance, ctx, streams ? sink : undefined);
    },
    canStream: streams ? chainCanStream : () => false,
  };
}

export const llamaIndexAgentNodes: NodeDefinition[] = [
  llamaIndexAgent("openAIToolAgentLlamaIndex", true),
  llamaIndexAgent("anthropicAgentLlamaIndex", false),
];
