// Supervisor (multi agents): the team's entry and its router. Each turn it asks its model, through
// the forced `route` tool call Flowise uses ({reasoning, next: FINISH | worker, instructions}),
// who acts next; its branches are the workers, then FINISH. Every supervisor or worker run is one
// step: when the worker it picks would pass `recursionLimit` (default 100), the team stops with an
// answer saying so instead of Flowise's error.
import { z } from "zod";
import { fail } from "../../../errors";
import { refId } from "../../core/refs";
import { invokeStructured } from "../../agentflow/structured";
import { nonBlank, num } from "../../agentflow/util";
import { moderated, modelOf, ownerOf, resolveV1 } from "../components";
import type { V1Node } from "../types";
import { type V1NodeDef, lastSaid, openingMessages, thisTurn, reasoning, routeBranches, snake, toMessages } from "./common";

const SUPERVISOR_PROMPT = `You are a supervisor tasked with managing a conversation between the following workers: {team_members}.
Given the following user request, respond with the worker to act next.
Each worker will perform a task and respond with their results and status.
When finished, respond with FINISH.
Select strategically to minimize the number of steps taken.`;

const DEFAULT_RECURSION_LIMIT = 100;

const recursionMessage = (limit: number) =>
  `The team stopped: it reached its recursion limit (${limit} steps of the supervisor and its workers) before the supervisor said FINISH.`;

export const supervisorNode: V1NodeDef = {
  name: "supervisor",
  mode: "team",
  variableParams: [],
  start: true,
  topLevelOnly: true,
  branches: routeBranches,
  translate(node, scope) {
    const supervisors = scope.ofName("supervisor");
    if (supervisors.length > 1 && supervisors[0].id === node.id) {
      scope.errors.push(
        `A multi-agent flow has one Supervisor; this one ` +
          `has ${supervisors.length}: ${supervisors.map((s) => `${s.data.label} (${s.id})`).join(", ")}`,
      );
    }
    // In the graph's node order, as Flowise lists the team.
    const children = new Set(scope.childrenOf(node.id));
    const workers = scope.flow.filter((n) => n.data.name === "worker" && children.has(n.id));
    if (!workers.length) scope.errors.push(`${node.data.label} (${node.id}) has no workers: connect at least one Worker to it`);
    const handles = new Map(
      scope.edgesFrom(node.id).map((e) => [
        e,
        `${node.id}-output-${Math.max(
          0,
          workers.findIndex((w) => w.id === e.target),
        )}`,
      ]),
    );
    const label = nonBlank(node.data.inputs?.supervisorName) ?? node.data.label;
    return {
      label,
      inputs: { v1Branches: workers.length + 1 },
      handles,
      info: {
        workers: workers.map((w) => ({
          id: w.id,
          label: nonBlank(w.data.inputs?.workerName) ?? w.data.label,
          name: snake(nonBlank(w.data.inputs?.workerName) ?? w.data.label),
        })),
      },
    };
  },
  async run({ node, input, rt }) {
    const v1 = node as V1Node;
    const owner = ownerOf(node);
    const { inputs } = await resolveV1(v1, rt, input);
    const model = modelOf(v1, inputs);
    const workers = v1.data.v1.workers ?? [];
    const members = workers.map((w) => w.name);
    const given = num(inputs.recursionLimit);
    const limit = given !== undefined && given >= 1 ? Math.floor(given) : DEFAULT_RECURSION_LIMIT;
    const summarize = inputs.summarization === true || inputs.summarization === "true";

    const first = !rt.runtimeChatHistory.length;
    const opening = first
      ? openingMessages(rt, await moderated(v1, inputs, input), refId(v1.data.v1.original.data.inputs?.agentMemory) !== undefined)
      : [];
    const conversation = [...rt.runtimeChatHistory, ...opening];
    const workerRuns = thisTurn(conversation).filter((m) => m.additional_kwargs?.type === "worker").length;
    const system = (nonBlank(inputs.supervisorPrompt) ?? SUPERVISOR_PROMPT).replaceAll("{team_members}", members.join(", "));
    const ask =
      `Given the conversation above, who should act next? Or should we FINISH? Select one ` +
      `of: ${["FINISH", ...members].join(", ")}. Use the route tool in your response.${
        summarize ? "\nRemember to give " + "reasonings, instructions and summarization" : ""
      }`;
    if (!members.length) throw fail("INVALID_FLOW", `${owner} has no workers`);
    const schema = z.object({
      reasoning: z.string(),
      next: z.enum(["FINISH", ...members] as [string, ...string[]]),
      instructions: z.string().describe("The specific instructions of the sub-task the next role should accomplish."),
      ...(summarize ? { summarization: z.string().optional().describe("Summarization of the conversation") } : {}),
    });
    const messages = toMessages([{ role: "system", content: system }, ...conversation, { role: "user", content: ask }]);
    const { value } = await invokeStructured(model, messages, schema, owner, rt.signal, {
      name: "route",
      description: "Select the worker to act next",
    });

    let next = String(value.next);
    const instructions = String(value.instructions ?? "");
    // This run is step 2k+1 (k workers ran); the worker it picks would be step 2k+2.
    const stopped = next !== "FINISH" && 2 * workerRuns + 2 > limit;
    if (stopped) next = "FINISH";
    let content = "";
    if (next === "FINISH") {
      const last = lastSaid(rt.runtimeChatHistory, "worker")?.content;
      content = stopped
        ? `${recursionMessage(limit)}${last ? `\n\nThe last worker's answer:\n${last}` : ""}`
        : last || nonBlank(value.summarization) || instructions;
    }
    const teamState = { next, instructions, team_members: members.join(", ") };
    return {
      id: node.id,
      name: node.data.name,
      input: { messages: conversation },
      output: {
        content,
        ...teamState,
        ...(stopped ? { recursionLimitReached: limit } : {}),
        conditions: [
          ...workers.map((w) => ({ worker: w.label, isFulfilled: w.name === next })),
          { worker: "FINISH", isFulfilled: next === "FINISH" },
        ],
        ...reasoning({
          agentName: node.data.label,
          messages: [],
          next,
          instructions,
          usedTools: [],
          sourceDocuments: [],
          artifacts: [],
          state: teamState,
          nodeId: node.id,
        }),
      },
      // The team state Flowise keeps (next, instructions, team_members): workers read team_members.
      state: { ...rt.state, ...teamState },
      chatHistory: opening,
    };
  },
};
