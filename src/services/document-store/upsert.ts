// Upsert and refresh: synchronous (answer the counts) or through the upsert queue (answer 202 at
// once; the consumer runs the staged loaders in order, under the leases they were staged with).
import { ApiError, badRequest } from "../../errors";
import type { UpsertInput } from "../../schemas/document-store";
import { buildComponents } from "./components";
import { megabytes, workLimits } from "../../lib/limits";
import { QueueInstead, executePlan, stagePlan } from "./execute";
import { deleteStagedFiles } from "./files";
import { type Continues, isContinues } from "./ingest-control";
import type { UpsertResult } from "./indexing";
import { queuedUpsertLeaseMs } from "./lease";
import { failQueuedLoader, holdForRetry, loaderExists } from "./loader-rows";
import { type Plan, type Uploads, planSaved, planUpsert } from "./plan";
import { getStoreState } from "./stores";
import type { DocStoreDeps } from "./types";

/** A queued upsert: run these saved loaders of the store, in order, each under its staged lease. */
export interface UpsertJob {
  kind: "document-store-upsert";
  storeId: string;
  loaderIds: string[];
  /** The lease each loader was staged under (absent in jobs queued before leases existed). */
  leases?: string[];
  /** A job that continues an earlier one: when that one started (a record manager's full cleanup deletes what was not indexed since). */
  since?: number;
}

export interface QueueSender {
  send(body: UpsertJob): Promise<unknown>;
}

export interface Accepted {
  docId: string;
  storeId: string;
  status: "UPSERTING";
  message: string;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
const isClientError = (err: unknown) => err instanceof ApiError && err.status < 500;

function queueOf(deps: DocStoreDeps): QueueSender {
  const q = (deps.env as { UPSERT_QUEUE?: QueueSender }).UPSERT_QUEUE;
  if (!q || typeof q.send !== "function")
    throw badRequest("Asynchronous upserts need the UPSERT_QUEUE queue binding; send without `async` to upsert now");
  return q;
}

/** Stages each plan and queues one job for what was staged (also when a later plan failed to stage). */
async function stageAndQueue(deps: DocStoreDeps, storeId: string, plans: Plan[]) {
  const queue = queueOf(deps);
  const staged: Array<Awaited<ReturnType<typeof stagePlan>>> = [];
  try {
    for (const plan of plans) staged.push(await stagePlan(deps, plan));
  } finally {
    if (staged.length) {
      try {
        await queue.send({
          kind: "document-store-upsert",
          storeId,
          loaderIds: staged.map((s) => s.entry.id),
          leases: staged.map((s) => s.lease),
        });
      } catch (err) {
        // Nothing will run them: say so on the loaders rather than leave them waiting for their leases to run out.
        for (const s of staged) await failQueuedLoader(deps, s.entry.id, s.lease, `The upsert could not be queued: ${messageOf(err)}`);
        // biome-ignore lint/correctness/noUnsafeFinally: what was staged cannot run, so this is the error to report, whatever staging threw
        throw err;
      }
    }
  }
  return staged.map((s) => s.entry);
}

export const isAccepted = (result: UpsertResult | Accepted): result is Accepted => "status" in result && result.status === "UPSERTING";

const hasQueue = (deps: DocStoreDeps): boolean => typeof (deps.env as { UPSERT_QUEUE?: QueueSender }).UPSERT_QUEUE?.send === "function";

/**
 * Runs an upsert now, or through the queue: when asked (`async: true`), and — unless the caller
 * said `async: false`, and when the queue is bound — when its text or JSON Lines files are larger
 * than UPSERT_QUEUE_MB together, or when it splits into more than UPSERT_QUEUE_CHUNKS chunks (other
 * loaders: their chunks are counted in memory before anything is written, so a refused upsert
 * stores nothing). The queue consumer has the CPU time a request lacks.
 */
export async function upsertDocStore(
  deps: DocStoreDeps,
  storeId: string,
  input: UpsertInput,
  uploads: Uploads = { files: [] },
): Promise<UpsertResult | Accepted> {
  try {
    return await upsertNowOrQueued(deps, storeId, input, uploads);
  } finally {
    // Files a multipart body staged that no loader of the store took as its own (a failure, a replaced loader, a new store).
    if (uploads.id) await dropStagedUpload(deps, storeId, uploads.id);
  }
}

async function upsertNowOrQueued(
  deps: DocStoreDeps,
  storeId: string,
  input: UpsertInput,
  uploads: Uploads,
): Promise<UpsertResult | Accepted> {
  const store = input.createNewDocStore ? await getStoreState(deps, storeId).catch(() => undefined) : await getStoreState(deps, storeId);
  const plan = planUpsert(deps, store, input, uploads);
  let why = "the upsert continues in the queue";
  if (!input.async) {
    const limits = workLimits(deps.env);
    const auto = input.async === undefined && hasQueue(deps);
    const bytes = plan.streamed ? plan.files.reduce((n, f) => n + f.size, 0) : 0;
    if (auto && bytes > megabytes(limits.queueMb)) {
      why =
        `its files (${(bytes / 1024 / 1024).toFixed(1)} MB) are more than one request reads ` +
        `(UPSERT_QUEUE_MB ${limits.queueMb}), so the upsert continues in the queue`;
    } else {
      const queueAbove = auto ? limits.queueChunks : undefined;
      try {
        return finished(await executePlan(deps, plan, { queueAbove }));
      } catch (err) {
        if (!(err instanceof QueueInstead)) throw err;
        why =
          `its ${err.chunks} chunks are more than one request processes (UPSERT_QUEUE_CHUNKS ${queueAbove}), ` +
          `so the upsert continues in the queue`;
      }
    }
  }
  const [entry] = await stageAndQueue(deps, plan.storeId, [plan]);
  return {
    docId: entry.id,
    storeId: plan.storeId,
    status: "UPSERTING",
    message: `Accepted: ${why}; the store's status and the loader's counts and progress show how far it is`,
  };
}

/** A run without a budget goes to its end. */
function finished(result: UpsertResult | Continues): UpsertResult {
  if (isContinues(result)) throw new Error("an upsert without a budget stopped before its end");
  return result;
}

async function dropStagedUpload(deps: DocStoreDeps, storeId: string, uploadId: string): Promise<void> {
  try {
    if (!(await loaderExists(deps, storeId, uploadId))) await deleteStagedFiles(deps.files, storeId, uploadId);
  } catch (err) {
    console.error(`document store: removing the staged upload ${uploadId} failed: ${messageOf(err)}`);
  }
}

/** Runs a store's loaders (all, or the items given) again, in place; one result per item. */
export async function refreshDocStore(
  deps: DocStoreDeps,
  storeId: string,
  body: { items?: UpsertInput[]; async?: boolean },
): Promise<UpsertResult[] | Accepted[]> {
  const store = await getStoreState(deps, storeId);
  const items: UpsertInput[] = body.items?.length ? body.items : store.loaders.map((l) => ({ docId: l.id }));
  if (!items.length) throw badRequest(`Document store ${storeId} has no loaders to refresh`);
  const plans: Plan[] = items.map((item) => planUpsert(deps, store, { ...item, createNewDocStore: false }, undefined, { inPlace: true }));
  if (body.async) {
    const entries = await stageAndQueue(deps, storeId, plans);
    return entries.map((e) => ({ docId: e.id, storeId, status: "UPSERTING", message: "Accepted: the refresh continues in the queue" }));
  }
  return (await runInOrder(deps, storeId, plans)).results;
}

interface InOrder {
  /** Decides whether the rest goes on after a failure (the queue consumer records and continues). */
  onFailure?: (plan: Plan, err: unknown) => Promise<void>;
  /** Bytes of streamed files to read before stopping (a queue message's share). */
  budgetBytes?: number;
  /** When the runs began, for a job that continues an earlier one. */
  since?: number;
}

/**
 * Several loaders in a row. A record manager's `full` cleanup runs once, after the last, against
 * the time the run started: otherwise each loader's indexing would delete the ones before it.
 * Stops at a streamed loader that used up the budget (`stoppedAt`: it and the rest are left).
 */
async function runInOrder(
  deps: DocStoreDeps,
  storeId: string,
  plans: Plan[],
  options: InOrder = {},
): Promise<{ results: UpsertResult[]; since?: number; stoppedAt?: number }> {
  const first = await buildComponents(deps, storeId, plans[0].components);
  const since = options.since ?? (first.recordManager ? await first.recordManager.recordManager.getTime() : undefined);
  const results: UpsertResult[] = [];
  for (let i = 0; i < plans.length; i++) {
    const control = { fullCleanupSince: since, skipFullCleanup: i < plans.length - 1, budgetBytes: options.budgetBytes };
    try {
      const result = await executePlan(deps, plans[i], control);
      if (isContinues(result)) return { results, since, stoppedAt: i };
      results.push(result);
    } catch (err) {
      if (!options.onFailure) throw err;
      await options.onFailure(plans[i], err);
    }
  }
  return { results, since };
}

/**
 * The queue consumer's work for one message. A loader that cannot be processed is marked STALE
 * with its error and the others go on; a server or provider failure is rethrown for the queue to
 * retry (the loader's lease held until then; a streamed loader continues where its progress
 * says), and on the last attempt recorded like the others. A streamed loader that reads more than
 * one message's share (UPSERT_MESSAGE_MB) is continued by a new message, with the loaders after it.
 */
export async function runUpsertJob(deps: DocStoreDeps, job: UpsertJob, lastAttempt = false): Promise<void> {
  const store = await getStoreState(deps, job.storeId).catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 404) return undefined; // the store was deleted since
    throw err;
  });
  if (!store) return;
  let retry: unknown;
  const failed = async (loaderId: string, lease: string | undefined, err: unknown) => {
    if (isClientError(err) || lastAttempt || !lease) {
      await failQueuedLoader(deps, loaderId, lease, messageOf(err));
    } else {
      await holdForRetry(deps, loaderId, lease, Date.now() + queuedUpsertLeaseMs(deps.env));
    }
    if (!isClientError(err)) retry ??= err;
  };
  const plans: Plan[] = [];
  for (const [i, loaderId] of job.loaderIds.entries()) {
    const lease = job.leases?.[i] || undefined;
    try {
      plans.push(planSaved(deps, store, loaderId, lease));
    } catch (err) {
      await failed(loaderId, lease, err);
    }
  }
  if (plans.length) {
    const budgetBytes = megabytes(workLimits(deps.env).messageMb);
    const done = await runInOrder(deps, job.storeId, plans, {
      onFailure: (plan, err) => failed(plan.entryId, plan.lease, err),
      budgetBytes,
      since: job.since,
    });
    if (done.stoppedAt !== undefined) {
      const rest = plans.slice(done.stoppedAt);
      const stopped = rest[0];
      // Its lease lasts until the next message can run; the message carries the rest of the job.
      if (stopped.lease) await holdForRetry(deps, stopped.entryId, stopped.lease, Date.now() + queuedUpsertLeaseMs(deps.env));
      await queueOf(deps).send({
        kind: "document-store-upsert",
        storeId: job.storeId,
        loaderIds: rest.map((p) => p.entryId),
        leases: rest.map((p) => p.lease ?? ""),
        ...(done.since !== undefined ? { since: done.since } : {}),
      });
    }
  }
  if (retry) throw retry;
}
