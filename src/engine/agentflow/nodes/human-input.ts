// Human Input: pauses the run with a description and Proceed / Reject buttons (the executor turns
// the result into the pending action, AGENTFLOW.md §7.1); on resume it takes branch `-output-0`
// (proceed) or `-output-1` (reject), with the user's feedback as its content.
import { fail } from "../../../errors";
import { chatModel } from "../components";
import { toLangChain } from "../messages";
import { callChat } from "../model-call";
import type { AgentflowNodeDef } from "../node-types";
import { bool } from "../util";
import { ownerOf } from "./common";

const DEFAULT_DESCRIPTION = "Do you want to proceed?";
const DEFAULT_MODEL_PROMPT =
  `Summarize the conversation between the user and the assistant so far, repeat the ` +
  `assistant's last message in full, and ask whether the user wants to proceed or has feedback on it.

Answer in three parts, as plain text:
- a summary of the conversation (1-3 sentences);
- the assistant's last message, exactly as it was;
- the question: proceed, or feedback on the last assistant message? Nothing else.`;

export const humanInputNode: AgentflowNodeDef = {
  name: "humanInputAgentflow",
  variableParams: ["humanInputDescription", "humanInputModelPrompt"],
  branches: () => 2, // proceed, reject
  pauses: (_result, resumed) => !resumed,
  topLevelOnly: true,
  async run({ node, inputs, rt }) {
    const feedbackOn = bool(inputs.humanInputEnableFeedback, true);
    const past = [...rt.pastChatHistory, ...rt.runtimeChatHistory];
    const answer = rt.humanInput;
    if (answer) {
      const feedback = feedbackOn && answer.feedback ? answer.feedback : undefined;
      const content = answer.feedback || answer.type;
      const conditions = (["proceed", "reject"] as const).map((type) => ({
        type,
        startNodeId: answer.startNodeId,
        feedback,
        isFulfilled: answer.type === type,
      }));
      return {
        id: node.id,
        name: node.data.name,
        input: { ...answer, messages: [...past, { role: "user", content }] },
        output: { content, conditions },
        state: rt.state,
        ...(feedback ? { chatHistory: [{ role: "user" as const, content: feedback }] } : {}),
      };
    }

    let description: string;
    if (inputs.humanInputDescriptionType === "dynamic") {
      const model = await chatModel(rt.ctx, inputs.humanInputModel, inputs.humanInputModelConfig, ownerOf(node), "humanInputModel");
      const prompt =
        typeof inputs.humanInputModelPrompt === "string" && inputs.humanInputModelPrompt.trim()
          ? inputs.humanInputModelPrompt
          : DEFAULT_MODEL_PROMPT;
      const reply = await callChat(
        model,
        toLangChain([...past, { role: "user", content: prompt }]),
        rt.signal,
        rt.streaming ? rt.emit.token : undefined,
      );
      description = typeof reply.content === "string" ? reply.content : String(reply.text ?? "");
    } else {
      const fixed =
        typeof inputs.humanInputDescription === "string" && inputs.humanInputDescription
          ? inputs.humanInputDescription
          : DEFAULT_DESCRIPTION;
      description = `${past.at(-1)?.content ?? ""}\n\n${fixed}`;
      if (rt.streaming) rt.emit.token(description);
    }
    if (rt.iteration)
      throw fail(
        "INVALID_FLOW",
        `${ownerOf(node)}: a Human Input inside an Iteration cannot pause the run; move it out of the iteration block`,
      );
    return {
      id: node.id,
      name: node.data.name,
      input: { messages: past, humanInputEnableFeedback: feedbackOn },
      output: { content: description },
      state: rt.state,
      chatHistory: [{ role: "assistant", content: description }],
    };
  },
};
