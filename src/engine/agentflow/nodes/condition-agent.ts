// Condition Agent: a chat model picks one of the scenarios for the input (default `{{ question }}`),
// answering JSON `{"output": "<scenario>"}` (fenced or bare). The answer is matched exactly (case
// blind), then as a prefix, then as a substring either way; no match takes the last scenario.
// Branch `-output-i` is scenario i. An answer that is not such JSON fails the node.
import { fail } from "../../../errors";
import { chatModel } from "../components";
import { appendMemory, memorySettings, prependedHistory } from "../memory";
import { imageResolver, pastWithImages, questionImages } from "../images";
import { toLangChain } from "../messages";
import { callChat, replyOutput } from "../model-call";
import type { AgentflowNodeDef } from "../node-types";
import type { AgentflowMessage } from "../types";
import { bool, errorMessage, isAbort, isObject, listOf, prefixed } from "../util";
import { ownerOf } from "./common";

const CONDITION_AGENT_SYSTEM_PROMPT =
  `You route requests in a system of cooperating agents. Read the input and ` +
  `choose the ONE scenario from the given list that fits it best.

Steps:
1. Read the input, the scenarios and the instruction.
2. Work out what the input is about or asks for.
3. Compare it with every scenario and pick the best fit.
4. Answer with the chosen scenario in the JSON format below.

Output format: a JSON object naming the chosen scenario, exactly as written in the list: {"output": "<scenario>"}. ` +
  `Write nothing else: no explanation, no other text.`;

const EXAMPLE_INPUT =
  `{"input": "Hello", "scenarios": ["user is asking about AI", "user is not asking about AI"], ` +
  `"instruction": "Your task is to check if the user is asking about AI."}`;
const EXAMPLE_OUTPUT = '```json\n{"output": "user is not asking about AI"}\n```';

/** Index of the scenario an answer names (see the header); -1 when there are none. */
function matchScenario(scenarios: string[], answer: string): number {
  if (!scenarios.length) return -1;
  const wanted = answer.toLowerCase().trim();
  const lower = scenarios.map((s) => s.toLowerCase());
  let i = lower.indexOf(wanted);
  if (i < 0) i = lower.findIndex((s) => s.startsWith(wanted));
  if (i < 0) i = lower.findIndex((s) => s.includes(wanted) || wanted.includes(s));
  return i < 0 ? scenarios.length - 1 : i;
}

function chosen(text: string): string {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  const body = (fenced ? fenced[1] : text).trim();
  const start = body.indexOf("{");
  const end = body.lastIndexOf("}");
  const parsed = start >= 0 && end > start ? JSON.parse(body.slice(start, end + 1)) : undefined;
  if (!isObject(parsed) || typeof parsed.output !== "string" || !parsed.output)
    throw new Error('the "output" key is missing or not a string');
  return parsed.output;
}

export const conditionAgentNode: AgentflowNodeDef = {
  name: "conditionAgentAgentflow",
  variableParams: ["conditionAgentInstructions", "conditionAgentInput", "conditionAgentSystemPrompt"],
  branches: (inputs) => listOf(inputs.conditionAgentScenarios).length, // no Else: the last scenario is the fallback
  async run({ node, inputs, input, rt }) {
    try {
      const owner = ownerOf(node);
      const scenarios = listOf<{ scenario?: unknown }>(inputs.conditionAgentScenarios).map((s) =>
        typeof s?.scenario === "string" ? s.scenario : "",
      );
      if (!scenarios.length) throw fail("INVALID_FLOW", `${owner} needs at least one scenario (conditionAgentScenarios)`);
      const model = await chatModel(rt.ctx, inputs.conditionAgentModel, inputs.conditionAgentModelConfig, owner, "conditionAgentModel");
      const own =
        typeof inputs.conditionAgentSystemPrompt === "string" &&
        inputs.conditionAgentSystemPrompt.trim() &&
        bool(inputs.conditionAgentOverrideSystemPrompt);
      const system = own ? String(inputs.conditionAgentSystemPrompt) : CONDITION_AGENT_SYSTEM_PROMPT;
      const text =
        typeof inputs.conditionAgentInput === "string" && inputs.conditionAgentInput ? inputs.conditionAgentInput : (input ?? "");
      const instruction = typeof inputs.conditionAgentInstructions === "string" ? inputs.conditionAgentInstructions : "";
      const request = JSON.stringify({ input: text, scenarios, instruction });
      const pretty =
        `### Input\n${text}\n\n### ` +
        `Scenarios\n${scenarios.map((s, i) => `${i + 1}. ${s}`).join("\n")}\n\n### Instruction\n${instruction}`;

      const messages: AgentflowMessage[] = prependedHistory(rt);
      const memory = memorySettings(inputs, "conditionAgent");
      const config = isObject(inputs.conditionAgentModelConfig) ? inputs.conditionAgentModelConfig : {};
      if (memory.enabled) {
        const past = await pastWithImages(rt, config, memory);
        await appendMemory(messages, [...past, ...rt.runtimeChatHistory], memory, model, rt.signal);
      }
      // The first node's question images (./images.ts) go just before its request, as Flowise puts them.
      const images = questionImages(rt, config);
      if (images) messages.push(images);
      messages.push({ role: "user", content: request });
      const prefix: AgentflowMessage[] = [
        { role: "system", content: system },
        { role: "user", content: EXAMPLE_INPUT },
        { role: "assistant", content: EXAMPLE_OUTPUT },
      ];

      const start = rt.now();
      const reply = await callChat(model, toLangChain([...prefix, ...messages], imageResolver(rt, config)), rt.signal);
      const output = replyOutput(reply, start, rt.now());
      const content = String(output.content);
      let name: string;
      try {
        name = chosen(content);
      } catch (err) {
        throw fail(
          "MODEL_FAILED",
          `Failed to parse a valid scenario from the model's answer (${errorMessage(err)}); the model must answer ` +
            `JSON {"output": "<scenario>"}. Its answer: "${content.slice(0, 300)}"`,
        );
      }
      const match = matchScenario(scenarios, name);
      messages[messages.length - 1] = { role: "user", content: pretty };
      const { calledTools: _, ...fields } = output;
      return {
        id: node.id,
        name: node.data.name,
        input: { messages },
        output: { conditions: scenarios.map((s, i) => ({ output: s, isFulfilled: i === match })), ...fields },
        state: rt.state,
        chatHistory: !rt.runtimeChatHistory.length && input ? [{ role: "user", content: input }] : [],
      };
    } catch (err) {
      if (isAbort(err, rt.signal)) throw err;
      throw prefixed("Error in Condition Agent node: ", err);
    }
  },
};
