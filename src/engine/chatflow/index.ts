// The chatflow runtime (Flowise's classic chatflows, and assistants made into one): plan once, run.
import type { FlowRuntime } from "../core/flow-runtime";
import { withInstanceRefs } from "./bare-refs";
import { canStreamGraph, planChatflow } from "./plan";
import { runChatflow } from "./run";

export const chatflowRuntime: FlowRuntime = {
  prepare(parsed) {
    const graph = withInstanceRefs(parsed);
    const plan = planChatflow(graph);
    return { kind: "chatflow", graph, streamable: plan.streamable, run: (ctx, sink) => runChatflow(plan, ctx, sink) };
  },
  canStream: (graph) => canStreamGraph(withInstanceRefs(graph)),
};
