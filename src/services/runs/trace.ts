// The door's side of tracing (services/tracing): a run whose chatflow's `analytic` switches a
// backend on gets a trace when it starts; completeChatflow / completeAgentflow run their work
// inside it, and an agentflow's nodes become spans through the engine's aroundNode port.
import { startTrace } from "../tracing";
import type { AgentflowRun } from "./agentflow-start";
import type { ChatflowRun } from "./chatflow";
import type { RunDeps } from "./types";

/** Sets `run.trace` when the flow traces (a flow without analytic: one check, nothing else). */
export function traced<R extends ChatflowRun | AgentflowRun>(deps: RunDeps, run: R): R {
  if (!run.flow.analytic) return run;
  const { input, ctx } = run;
  const question =
    input.question ?? (input.form ? JSON.stringify(input.form) : input.humanInput ? `humanInput: ${JSON.stringify(input.humanInput)}` : "");
  run.trace = startTrace(deps, {
    analytic: run.flow.analytic,
    flowId: run.flow.id,
    flowName: run.flow.name,
    flowType: run.flow.type,
    chatId: ctx.chatId,
    sessionId: ctx.sessionId,
    question,
    chatType: run.chatType,
    secrets: run.secrets,
    live: run.steps ? () => run.steps!.live : undefined,
  });
  return run;
}
