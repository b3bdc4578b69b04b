// Upsert and refresh: synchronous (answer the counts) or through the upsert queue (answer 202 at
// once; the consumer runs the staged loaders in order, under the leases they were staged with).
import { ApiError, badRequest } from "../../errors";
import type { LoaderFile } from "../../providers/loaders/types";
import type { UpsertInput } from "../../schemas/document-store";
import { buildComponents } from "./components";
import { workLimits } from "../../lib/limits";
import { QueueInstead, executePlan, stagePlan } from "./execute";
import type { UpsertResult } from "./indexing";
import { queuedLeaseMs } from "./lease";
import { failQueuedLoader, holdForRetry } from "./loader-rows";
import { type Plan, planSaved, planUpsert } from "./plan";
import { getStoreState } from "./stores";
import type { DocStoreDeps } from "./types";

/** A queued upsert: run these saved loaders of the store, in order, each under its staged lease. */
export interface UpsertJob {
  kind: "document-store-upsert";
  storeId: string;
  loaderIds: string[];
  /** The lease each loader was staged under (absent in jobs queued before leases existed). */
  leases?: string[];
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
  if (!q || typeof q.send !== "function") throw badRequest("Asynchronous upserts need the UPSERT_QUEUE queue binding; send without `async` to upsert now");
  return q;
}

/** Stages each plan and queues one job for what was staged (also when a later plan failed to stage). */
async function stageAndQueue(deps: DocStoreDeps, bucket: R2Bucket, storeId: string, plans: Plan[]) {
  const queue = queueOf(deps);
  const staged: Array<Awaited<ReturnType<typeof stagePlan>>> = [];
  try {
    for (const plan of plans) staged.push(await stagePlan(deps, bucket, plan));
  } finally {
    if (staged.length) {
      try {
        await queue.send({ kind: "document-store-upsert", storeId, loaderIds: staged.map((s) => s.entry.id), leases: staged.map((s) => s.lease) });
      } catch (err) {
        // Nothing will run them: say so on the loaders rather than leave them waiting for their leases to run out.
        for (const s of staged) await failQueuedLoader(deps.db, s.entry.id, s.lease, `The upsert could not be queued: ${messageOf(err)}`);
        throw err;
      }
    }
  }
  return staged.map((s) => s.entry);
}

export const isAccepted = (result: UpsertResult | Accepted): result is Accepted => "status" in result && result.status === "UPSERTING";

const hasQueue = (deps: DocStoreDeps): boolean => typeof (deps.env as { UPSERT_QUEUE?: QueueSender }).UPSERT_QUEUE?.send === "function";

/**
 * Runs an upsert now, or through the queue: when asked (`async: true`), and when it splits into
 * more than UPSERT_QUEUE_CHUNKS chunks and the queue is bound (unless the caller said
 * `async: false`) — the queue consumer has the CPU time a request lacks. The chunks are counted
 * (and every limit checked) before anything is written, so a refused upsert stores nothing.
 */
export async function upsertDocStore(deps: DocStoreDeps, bucket: R2Bucket, storeId: string, input: UpsertInput, uploads: LoaderFile[]): Promise<UpsertResult | Accepted> {
  const store = input.createNewDocStore ? await getStoreState(deps.db, storeId).catch(() => undefined) : await getStoreState(deps.db, storeId);
  const plan = planUpsert(deps, store, input, uploads);
  let why = "the upsert continues in the queue";
  if (!input.async) {
    const queueAbove = input.async === undefined && hasQueue(deps) ? workLimits(deps.env).queueChunks : undefined;
    try {
      return await executePlan(deps, bucket, plan, { queueAbove });
    } catch (err) {
      if (!(err instanceof QueueInstead)) throw err;
      why = `its ${err.chunks} chunks are more than one request processes (UPSERT_QUEUE_CHUNKS ${queueAbove}), so the upsert continues in the queue`;
    }
  }
  const [entry] = await stageAndQueue(deps, bucket, plan.storeId, [plan]);
  return { docId: entry.id, storeId: plan.storeId, status: "UPSERTING", message: `Accepted: ${why}; the store's status and the loader's counts show its progress` };
}

/** Runs a store's loaders (all, or the items given) again, in place; one result per item. */
export async function refreshDocStore(deps: DocStoreDeps, bucket: R2Bucket, storeId: string, body: { items?: UpsertInput[]; async?: boolean }): Promise<UpsertResult[] | Accepted[]> {
  const store = await getStoreState(deps.db, storeId);
  const items: UpsertInput[] = body.items?.length ? body.items : store.loaders.map((l) => ({ docId: l.id }));
  if (!items.length) throw badRequest(`Document store ${storeId} has no loaders to refresh`);
  const plans: Plan[] = items.map((item) => planUpsert(deps, store, { ...item, createNewDocStore: false }, [], { inPlace: true }));
  if (body.async) {
    const entries = await stageAndQueue(deps, bucket, storeId, plans);
    return entries.map((e) => ({ docId: e.id, storeId, status: "UPSERTING", message: "Accepted: the refresh continues in the queue" }));
  }
  return runInOrder(deps, bucket, storeId, plans);
}

/**
 * Several loaders in a row. A record manager's `full` cleanup runs once, after the last, against
 * the time the run started: otherwise each loader's indexing would delete the ones before it.
 * `onFailure` decides whether the rest goes on (the queue consumer records and continues).
 */
async function runInOrder(deps: DocStoreDeps, bucket: R2Bucket, storeId: string, plans: Plan[], onFailure?: (plan: Plan, err: unknown) => Promise<void>): Promise<UpsertResult[]> {
  const first = await buildComponents(deps, storeId, plans[0].components);
  const since = first.recordManager ? await first.recordManager.recordManager.getTime() : undefined;
  const results: UpsertResult[] = [];
  for (let i = 0; i < plans.length; i++) {
    const control = { fullCleanupSince: since, skipFullCleanup: i < plans.length - 1 };
    try {
      results.push(await executePlan(deps, bucket, plans[i], control));
    } catch (err) {
      if (!onFailure) throw err;
      await onFailure(plans[i], err);
    }
  }
  return results;
}

/**
 * The queue consumer's work for one message. A loader that cannot be processed is marked STALE
 * with its error and the others go on; a server or provider failure is rethrown for the queue to
 * retry (the loader's lease held until then), and on the last attempt recorded like the others.
 */
export async function runUpsertJob(deps: DocStoreDeps, bucket: R2Bucket, job: UpsertJob, lastAttempt = false): Promise<void> {
  const store = await getStoreState(deps.db, job.storeId).catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 404) return undefined; // the store was deleted since
    throw err;
  });
  if (!store) return;
  let retry: unknown;
  const failed = async (loaderId: string, lease: string | undefined, err: unknown) => {
    if (isClientError(err) || lastAttempt || !lease) {
      await failQueuedLoader(deps.db, loaderId, lease, messageOf(err));
    } else {
      await holdForRetry(deps.db, loaderId, lease, Date.now() + queuedLeaseMs(deps.env));
    }
    if (!isClientError(err)) retry ??= err;
  };
  const plans: Plan[] = [];
  for (const [i, loaderId] of job.loaderIds.entries()) {
    const lease = job.leases?.[i];
    try {
      plans.push(planSaved(deps, store, loaderId, lease));
    } catch (err) {
      await failed(loaderId, lease, err);
    }
  }
  if (plans.length) await runInOrder(deps, bucket, job.storeId, plans, (plan, err) => failed(plan.entryId, plan.lease, err));
  if (retry) throw retry;
}
