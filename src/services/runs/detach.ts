// Detached delivery (API.md, "Asynchronous runs"): the run is accepted in the request — the caller
// checked, the flow planned, its execution row made — and handed to a Workflow instance of the same
// id through the detached runs port (services/detached-runs.ts), which runs it (src/detached/). A
// resume of a paused detached run is claimed here and sent to its instance. Answers what the 202 says.
import type { ChatType } from "../../db/enums";
import { ApiError, badRequest, notFound } from "../../errors";
import { newId } from "../../lib/ids";
import { assertOutboundAllowed } from "../../lib/outbound";
import type { PredictionInput } from "../../schemas/prediction";
import type { DetachedParams, DetachedRuns } from "../detached-runs";
import { acceptDetached, claimDetachedResume, failDetachedStart } from "../executions";
import { runIds } from "./base";
import { parkUploads, parkWebhook } from "./park";
import type { Ready } from "./prepare";
import type { RunDeps, RunRequest } from "./types";

export interface DetachedRun {
  executionId: string;
  chatId: string;
  sessionId: string;
  status: "INPROGRESS";
}

/** An outbound policy refusal of a callback address, as the 400 that names where it came from. */
function checkCallback(url: string, env: RunDeps["env"], where: string): void {
  try {
    assertOutboundAllowed(url, env);
  } catch (err) {
    throw badRequest(`${where}: ${(err as Error).message}`);
  }
}

function workflows(deps: RunDeps): DetachedRuns {
  if (!deps.detached) throw new ApiError(501, "Asynchronous runs need the RUNS Workflow binding (wrangler.toml [[workflows]])");
  return deps.detached;
}

/** `chatType`: the trigger's, for the messages the Workflow's run stores. */
export async function detach(deps: RunDeps, ready: Ready, request: RunRequest, chatType: ChatType = "EXTERNAL"): Promise<DetachedRun> {
  const { env } = deps;
  const { flow } = ready;
  const { async: _async, streaming: _streaming, callbackUrl, ...input } = request.input;
  if (callbackUrl) checkCallback(callbackUrl, env, "callbackUrl");
  if (request.flowiseCallback) checkCallback(request.flowiseCallback.url, env, "The Start node's callbackUrl");
  const runs = workflows(deps);
  if (input.humanInput !== undefined) return acceptResume(deps, runs, ready, input);

  const ids = runIds(input);
  const executionId = newId();
  const uploadsKey = await parkUploads(env.FILES, executionId, request.uploads ?? []);
  const webhookKey = await parkWebhook(env.FILES, executionId, request.webhook);
  await acceptDetached(deps, { id: executionId, agentflowId: flow.id, sessionId: ids.sessionId });
  const params: DetachedParams = {
    executionId,
    flowId: flow.id,
    input: { ...input, chatId: ids.chatId },
    uploadsKey,
    callbackUrl,
    chatType,
    webhookKey,
    flowiseCallback: request.flowiseCallback,
    triggerLogId: request.triggerLogId,
  };
  try {
    await runs.start(params);
  } catch (err) {
    await failDetachedStart(deps, executionId);
    throw err;
  }
  return { executionId, chatId: ids.chatId, sessionId: ids.sessionId, status: "INPROGRESS" };
}

/**
 * A resume of a paused detached run: the pause is claimed here (one of two concurrent resumes wins,
 * the other is a 409) and the run's instance is sent the request, which it runs from the claim.
 */
async function acceptResume(deps: RunDeps, runs: DetachedRuns, ready: Ready, input: PredictionInput): Promise<DetachedRun> {
  const named = input.humanInput?.executionId;
  if (typeof named !== "string") throw badRequest("An asynchronous resume names the paused execution: humanInput.executionId");
  const target = await claimDetachedResume(deps, ready.flow.id, named);
  const ids = runIds(input, target.row.sessionId);
  if (!(await runs.resume(named, { ...input, chatId: ids.chatId }))) throw notFound(`The run of execution ${named} is gone`);
  return { executionId: named, chatId: ids.chatId, sessionId: ids.sessionId, status: "INPROGRESS" };
}
