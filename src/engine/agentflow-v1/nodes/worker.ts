// Worker (multi agents): its prompt (Flowise's autonomy suffix, {team_members} and promptValues
// filled) over the team's conversation; with tools, the agentflow tool loop (maxIterations). Its
// answer joins the conversation as a named human message, then the run goes back to the
// supervisor (the worker is the V2 model's loop back).
import { contentText } from "../../../providers/chat/messages";
import { refId } from "../../core/refs";
import type { UsedTool } from "../../core/types";
import { maxIterationsOf, runToolLoop } from "../../agentflow/agent-loop";
import { callChat } from "../../agentflow/model-call";
import type { AgentflowMessage } from "../../agentflow/types";
import { nonBlank, num } from "../../agentflow/util";
import { modelOf, resolveV1, toolsOf } from "../components";
import type { V1Node } from "../types";
import { type V1NodeDef, agentTools, carried, fillPrompt, promptValuesOf, reasoning, snake, toMessages } from "./common";

const AUTONOMY =
  "\nWork autonomously according to your specialty, using the tools available to you." +
  " Do not ask for clarification." +
  " Your other team members (and other teams) will collaborate with you with their own specialties." +
  " You are chosen for a reason! You are one of the following team members: {team_members}.";

export const workerNode: V1NodeDef = {
  name: "worker",
  mode: "team",
  variableParams: [],
  loopsBack: true,
  translate(node, scope) {
    const supervisorId = scope.parentsOf(node.id).find((id) => scope.byId.get(id)?.data.name === "supervisor");
    const supervisor = supervisorId ? scope.byId.get(supervisorId) : undefined;
    if (!supervisor) {
      scope.errors.push(`${node.data.label} (${node.id}) is not connected to a Supervisor`);
      return {};
    }
    return {
      label: nonBlank(node.data.inputs?.workerName) ?? node.data.label,
      inputs: { loopBackToNode: `${supervisor.id}-${supervisor.data.label}`, maxLoopCount: Number.MAX_SAFE_INTEGER },
      info: { fallbackModel: refId(supervisor.data.inputs?.model) },
    };
  },
  async run({ node, input, rt }) {
    const v1 = node as V1Node;
    const { inputs, found } = await resolveV1(v1, rt, input);
    const model = modelOf(v1, inputs);
    const tools = toolsOf(inputs.tools);
    const name = snake(nonBlank(inputs.workerName) ?? node.data.label);
    const supervisorId = String(node.data.inputs?.loopBackToNode ?? "").split("-")[0];
    const values = promptValuesOf(inputs.promptValues);
    const teamMembers = String(rt.state.team_members ?? "");
    const system = fillPrompt(`${nonBlank(inputs.workerPrompt) ?? ""}${AUTONOMY}`, { team_members: teamMembers, ...values });
    const messages: AgentflowMessage[] = [{ role: "system", content: system }, ...rt.runtimeChatHistory];

    let content: string;
    let usedTools: UsedTool[] = [];
    if (tools.length) {
      const maxIterations = maxIterationsOf(num(inputs.maxIterations));
      const loop = await runToolLoop({ model, tools: agentTools(tools, false), messages, maxIterations, live: false, rt });
      content = loop.content;
      usedTools = loop.usedTools;
    } else {
      content = contentText((await callChat(model, toMessages(messages), rt.signal)).content);
    }
    return {
      id: node.id,
      name: node.data.name,
      input: { messages: rt.runtimeChatHistory },
      output: {
        content,
        nodeID: supervisorId,
        maxLoopCount: Number.MAX_SAFE_INTEGER,
        ...carried(usedTools, found),
        ...reasoning({
          agentName: node.data.label,
          messages: [content],
          usedTools,
          sourceDocuments: found,
          artifacts: [],
          state: {},
          nodeId: node.id,
        }),
      },
      state: rt.state,
      chatHistory: [{ role: "user", content, name, additional_kwargs: { nodeId: node.id, type: "worker", ...carried(usedTools, found) } }],
    };
  },
};
