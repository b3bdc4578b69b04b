// Agentflow V2 runtime: the entry points the prediction and chatflow services use (types.ts has
// the seam). runAgentflow runs a parsed `type: AGENTFLOW` graph for one request, new or resumed.
import { fail } from "../../errors";
import { EventStream } from "./events";
import { FlowMap } from "./graph";
import { agentflowNodes } from "./nodes/registry";
import { fromTurns } from "./messages";
import { failed, finished } from "./outcome";
import { startPoint, userInput } from "./prepare";
import { AgentflowExecutor, NodeFailure } from "./executor";
import type { AgentflowGraph, AgentflowOutcome, AgentflowPorts, AgentflowRequest } from "./types";
import { isObject } from "./util";
import { validateAgentflow } from "./validate";

export { agentflowNodeNames } from "./nodes/registry";
export { stripCredentialIds } from "./outcome";
export { validateAgentflow } from "./validate";
export type * from "./types";

export async function runAgentflow(graph: AgentflowGraph, request: AgentflowRequest, ports: AgentflowPorts): Promise<AgentflowOutcome> {
  const { errors } = validateAgentflow(graph);
  if (errors.length) throw fail("INVALID_FLOW", `This agentflow cannot run: ${errors.join("; ")}`);
  if (request.question && isObject(request.form) && Object.keys(request.form).length)
    throw fail("INVALID_INPUT", "Question and form cannot be provided at the same time");

  const map = FlowMap.top(graph);
  const start = [...map.nodes.values()].find((n) => agentflowNodes.get(n.data.name)?.start)!;
  const point = startPoint(map, start, request);
  const events = new EventStream(request.streaming || request.observed ? ports.events : undefined, request.streaming);
  const run = new AgentflowExecutor(
    { graph, request, ports, events, input: userInput(request, point.form), now: () => ports.now?.() ?? Date.now(), steps: { count: 0 } },
    map,
    {
      state: point.state,
      pastChatHistory: fromTurns(await ports.pastChatHistory()),
      form: point.form,
      executedData: point.executedData,
      humanInput: point.humanInput,
      // A translated (Agentflow V1) graph's nodes share one conversation, which a resume restores.
      runtimeChatHistory: graph.translated
        ? point.executedData.filter((e) => e.status === "FINISHED").flatMap((e) => e.data.chatHistory ?? [])
        : undefined,
    },
  );
  events.flow("INPROGRESS");
  try {
    await run.drive([point.startNodeId]);
  } catch (err) {
    if (err instanceof NodeFailure) return failed(run, err);
    throw err;
  }
  return finished(run);
}
