import type { Context } from "hono";
import type { AppEnv } from "../env";
import type { PredictionInput } from "../schemas/prediction";
import type { Prefetched, RunnableFlow } from "../services/prediction";
import { agentflowAnswer, executeAgentflow } from "../services/prediction/agentflow";
import { prepareAgentflowRun } from "../services/prediction/agentflow-prepare";
import { startAgentflowStream } from "../services/prediction/agentflow-stream";
import type { UploadInput } from "../services/prediction/uploads";
import { SSE_HEADERS } from "../stream/sse";
import { abortOnDisconnect } from "./runnable";

/** POST /prediction/{id} on a `type: AGENTFLOW` chatflow, once access checks passed: JSON or Flowise's agentflow stream. */
export async function respondAgentflow(c: Context<AppEnv>, flow: RunnableFlow, input: PredictionInput, uploads: UploadInput[], prefetched: Prefetched): Promise<Response> {
  const run = await prepareAgentflowRun(c.var.db, c.env, c.var.runtime, flow, input, uploads, prefetched);
  abortOnDisconnect(c, run.controller);
  if (run.request.streaming) {
    const stream = await startAgentflowStream(run, (err) => console.error(`[${c.get("requestId")}] agentflow stream failed:`, err));
    c.executionCtx.waitUntil(stream.work);
    return new Response(stream.readable, { status: 200, headers: SSE_HEADERS });
  }
  return c.json(agentflowAnswer(run, await executeAgentflow(run)), 200);
}
