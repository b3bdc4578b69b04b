// Input moderation: a chain checks the question with each connected moderation first; a refused
// question is answered with the moderation's message instead of calling the model.
import { HumanMessage } from "@langchain/core/messages";
import { type ModerationInstance, ModerationRejected, isChatModel } from "../instances";
import { callModel } from "../../core/llm";
import type { NodeDefinition } from "../types";
import { providerConfig, str } from "../../core/inputs";
import { providerDeps } from "../../core/ports";
import { openAIModeration } from "../../../providers/moderation";

const DEFAULT_MESSAGE = "Cannot Process! Input violates content moderation policies.";
/** What Flowise's OpenAI moderation runner says when the node's Error Message is empty. */
const OPENAI_DEFAULT_MESSAGE = "Text was found that violates OpenAI's content policy.";

/** One deny-list entry per line; blank lines and surrounding spaces do not count. */
const denyListOf = (value: unknown): string[] =>
  typeof value === "string"
    ? value
        .split(/\r?\n/)
        .map((s) => s.trim())
        .filter(Boolean)
    : [];

export const moderationNodes: NodeDefinition[] = [
  {
    name: "inputModerationSimple",
    category: "Moderation",
    async build({ inputs, ctx }): Promise<ModerationInstance> {
      const denyList = denyListOf(inputs.denyList);
      const message = str(inputs.moderationErrorMessage) ?? DEFAULT_MESSAGE;
      const model = isChatModel(inputs.model) ? inputs.model : undefined;
      return {
        kind: "moderation",
        async check(input) {
          if (model) {
            // With a chat model: ask whether the input resembles each entry.
            for (const entry of denyList) {
              const verdict = await callModel(
                model,
                [
                  new HumanMessage(
                    `Are these two sentences similar to each other? Only return Yes or No.\nFirst ` +
                      `sentence: ${input}\nSecond sentence: ${entry}`,
                  ),
                ],
                ctx,
              );
              if (verdict.toLowerCase().includes("yes")) throw new ModerationRejected(message);
            }
            return input;
          }
          const lower = input.toLowerCase();
          if (denyList.some((entry) => lower.includes(entry.toLowerCase()))) throw new ModerationRejected(message);
          return input;
        },
      };
    },
  },
  {
    // OpenAI's moderation API (providers/moderation.ts): a flagged input is refused with the node's message.
    name: "inputModerationOpenAI",
    category: "Moderation",
    async build({ node, inputs, ctx }): Promise<ModerationInstance> {
      const moderation = await openAIModeration(providerConfig(node, inputs), providerDeps(ctx), "inputModerationOpenAI");
      const message = str(inputs.moderationErrorMessage) ?? OPENAI_DEFAULT_MESSAGE;
      return {
        kind: "moderation",
        async check(input) {
          if (await moderation.flagged(input)) throw new ModerationRejected(message);
          return input;
        },
      };
    },
  },
];
