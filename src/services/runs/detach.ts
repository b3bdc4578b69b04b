// Detached delivery (API.md, "Asynchronous runs"): the run is accepted in the request — the caller
// checked, the flow planned, its execution row made — and handed to a Cloudflare Workflow instance
// of the same id, which runs it (src/detached/). A resume of a paused detached run is claimed here
// and sent to its instance as an event. Answers what the 202 says.
import { eq } from "drizzle-orm";
import type { ChatType } from "../../db/enums";
import { execution } from "../../db/schema";
import type { WebhookPayload } from "../../engine/agentflow/types";
import { ApiError, badRequest, notFound } from "../../errors";
import { newId } from "../../lib/ids";
import { assertOutboundAllowed } from "../../lib/outbound";
import { nowIso } from "../../lib/time";
import type { PredictionInput } from "../../schemas/prediction";
import { claimForResume, findResumeTarget } from "../execution-resume";
import { executionFilesPrefix } from "../files";
import { runIds } from "./base";
import type { Ready } from "./prepare";
import type { FlowiseCallback, RunDeps, RunRequest } from "./types";
import type { UploadInput } from "./uploads";

export interface DetachedRun {
  executionId: string;
  chatId: string;
  sessionId: string;
  status: "INPROGRESS";
}

/** What the Workflow instance is created with (its params: JSON, kept by the platform). */
export interface DetachedParams {
  executionId: string;
  flowId: string;
  /** The request's fields, chatId fixed (a replay makes the same ids); no uploads (see uploadsKey). */
  input: PredictionInput;
  /** Where the request's files wait in R2 (a Workflow's params are small). */
  uploadsKey?: string;
  callbackUrl?: string;
  /** The trigger's chatType for the stored messages (EXTERNAL when absent: POST /prediction's async). */
  chatType?: ChatType;
  /** Where the webhook that fired the run waits in R2 (`$webhook.*`; up to the body limit, too large for params). */
  webhookKey?: string;
  /** An async webhook's callback: Flowise's body, signed with the Start node's callbackSecret. */
  flowiseCallback?: FlowiseCallback;
  /** A scheduled run's trigger-log row, settled when the run ends. */
  triggerLogId?: string;
}

/** The event a paused detached run waits for. `handled`: a synchronous request resumed it in its own isolate. */
export interface ResumeEvent {
  input?: PredictionInput;
  handled?: boolean;
}
export const RESUME_EVENT = "resume";

// Under the execution's prefix, so deleting the execution removes them (services/files.ts).
const uploadsKeyOf = (executionId: string) => `${executionFilesPrefix(executionId)}uploads.json`;
const webhookKeyOf = (executionId: string) => `${executionFilesPrefix(executionId)}webhook.json`;

/** The webhook payload parkWebhook kept (none when the key is gone). */
export async function unparkWebhook(files: R2Bucket, key: string | undefined): Promise<WebhookPayload | undefined> {
  if (!key) return undefined;
  const object = await files.get(key);
  return object ? ((await object.json()) as WebhookPayload) : undefined;
}

/** An outbound policy refusal of a callback address, as the 400 that names where it came from. */
function checkCallback(url: string, env: RunDeps["env"], where: string): void {
  try {
    assertOutboundAllowed(url, env);
  } catch (err) {
    throw badRequest(`${where}: ${(err as Error).message}`);
  }
}

/** Files as JSON (bytes base64), for the Workflow to read back. */
async function parkUploads(files: R2Bucket, executionId: string, uploads: UploadInput[]): Promise<string | undefined> {
  if (!uploads.length) return undefined;
  const key = uploadsKeyOf(executionId);
  const json = uploads.map((u) => ({
    ...u,
    bytes: u.bytes ? btoa(Array.from(u.bytes, (b) => String.fromCharCode(b)).join("")) : undefined,
  }));
  await files.put(key, JSON.stringify(json));
  return key;
}

/** The files parkUploads kept (none when the key is gone). */
export async function unparkUploads(files: R2Bucket, key: string | undefined): Promise<UploadInput[]> {
  if (!key) return [];
  const object = await files.get(key);
  if (!object) return [];
  const parked = (await object.json()) as (Omit<UploadInput, "bytes"> & { bytes?: string })[];
  return parked.map((u) => ({ ...u, bytes: u.bytes ? Uint8Array.from(atob(u.bytes), (c) => c.charCodeAt(0)) : undefined }));
}

function workflows(deps: RunDeps): Workflow {
  const binding = deps.env.RUNS;
  if (!binding) throw new ApiError(501, "Asynchronous runs need the RUNS Workflow binding (wrangler.toml [[workflows]])");
  return binding;
}

/** `chatType`: the trigger's, for the messages the Workflow's run stores. */
export async function detach(deps: RunDeps, ready: Ready, request: RunRequest, chatType: ChatType = "EXTERNAL"): Promise<DetachedRun> {
  const { env, db } = deps;
  const { flow } = ready;
  const { async: _async, streaming: _streaming, callbackUrl, ...input } = request.input;
  if (callbackUrl) checkCallback(callbackUrl, env, "callbackUrl");
  if (request.flowiseCallback) checkCallback(request.flowiseCallback.url, env, "The Start node's callbackUrl");
  const runs = workflows(deps);
  if (input.humanInput !== undefined) return resumeDetached(deps, runs, ready, input);

  const ids = runIds(input);
  const executionId = newId();
  const now = nowIso();
  const fixed: PredictionInput = { ...input, chatId: ids.chatId };
  const uploadsKey = await parkUploads(env.FILES, executionId, request.uploads ?? []);
  const webhookKey = request.webhook ? webhookKeyOf(executionId) : undefined;
  if (webhookKey) await env.FILES.put(webhookKey, JSON.stringify(request.webhook));
  await db.insert(execution).values({
    id: executionId,
    agentflowId: flow.id,
    sessionId: ids.sessionId,
    state: "INPROGRESS",
    executionData: "[]",
    detached: true,
    createdDate: now,
    updatedDate: now,
  });
  const params: DetachedParams = {
    executionId,
    flowId: flow.id,
    input: fixed,
    uploadsKey,
    callbackUrl,
    chatType,
    webhookKey,
    flowiseCallback: request.flowiseCallback,
    triggerLogId: request.triggerLogId,
  };
  try {
    await runs.create({ id: executionId, params });
  } catch (err) {
    await db
      .update(execution)
      .set({ state: "ERROR", error: "The run could not be started", updatedDate: nowIso() })
      .where(eq(execution.id, executionId));
    throw err;
  }
  return { executionId, chatId: ids.chatId, sessionId: ids.sessionId, status: "INPROGRESS" };
}

/**
 * A resume of a paused detached run: the pause is claimed here (one of two concurrent resumes wins,
 * the other is a 409) and the run's instance is sent the request, which it runs from the claim.
 */
async function resumeDetached(deps: RunDeps, runs: Workflow, ready: Ready, input: PredictionInput): Promise<DetachedRun> {
  const named = input.humanInput?.executionId;
  if (typeof named !== "string") throw badRequest("An asynchronous resume names the paused execution: humanInput.executionId");
  const target = await findResumeTarget(deps.db, deps.env, ready.flow.id, undefined, named);
  if (!target.row.detached) throw badRequest(`Execution ${named} was not started with async: true; resume it without async`);
  await claimForResume(deps.db, target);
  const instance = await runs.get(named).catch(() => {
    throw notFound(`The run of execution ${named} is gone`);
  });
  const ids = runIds(input, target.row.sessionId);
  const event: ResumeEvent = { input: { ...input, chatId: ids.chatId } };
  await instance.sendEvent({ type: RESUME_EVENT, payload: event });
  return { executionId: named, chatId: ids.chatId, sessionId: ids.sessionId, status: "INPROGRESS" };
}
