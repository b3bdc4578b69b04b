// Upsert and refresh: synchronous (answer the counts) or through the upsert queue (answer 202 at
// once; the consumer runs the saved loaders in order).
import { ApiError, badRequest } from "../../errors";
import type { LoaderFile } from "../../providers/loaders/types";
import type { UpsertInput } from "../../schemas/document-store";
import { buildComponents } from "./components";
import { type Plan, type UpsertResult, executePlan, markLoaderFailed, planSaved, planUpsert, stagePlan } from "./pipeline";
import { getStoreRow, parseLoaders } from "./stores";
import type { DocStoreDeps } from "./types";

/** A queued upsert: run these saved loaders of the store, in order. */
export interface UpsertJob {
  kind: "document-store-upsert";
  storeId: string;
  loaderIds: string[];
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

function queueOf(deps: DocStoreDeps): QueueSender {
  const q = (deps.env as { UPSERT_QUEUE?: QueueSender }).UPSERT_QUEUE;
  if (!q || typeof q.send !== "function") throw badRequest("Asynchronous upserts need the UPSERT_QUEUE queue binding; send without `async` to upsert now");
  return q;
}

export async function upsertDocStore(deps: DocStoreDeps, bucket: R2Bucket, storeId: string, input: UpsertInput, uploads: LoaderFile[]): Promise<UpsertResult | Accepted> {
  const row = input.createNewDocStore ? await getStoreRow(deps.db, storeId).catch(() => undefined) : await getStoreRow(deps.db, storeId);
  const plan = planUpsert(deps, row, input, uploads);
  if (!input.async) return executePlan(deps, bucket, plan);
  const queue = queueOf(deps);
  const entry = await stagePlan(deps, bucket, plan);
  await queue.send({ kind: "document-store-upsert", storeId: plan.storeId, loaderIds: [entry.id] });
  return { docId: entry.id, storeId: plan.storeId, status: "UPSERTING", message: "Accepted: the upsert continues in the queue; the store's status and the loader's counts show its progress" };
}

/** Runs a store's loaders (all, or the items given) again, in place; one result per item. */
export async function refreshDocStore(deps: DocStoreDeps, bucket: R2Bucket, storeId: string, body: { items?: UpsertInput[]; async?: boolean }): Promise<UpsertResult[] | Accepted[]> {
  const row = await getStoreRow(deps.db, storeId);
  const items: UpsertInput[] = body.items?.length ? body.items : parseLoaders(row).map((l) => ({ docId: l.id }));
  if (!items.length) throw badRequest(`Document store ${storeId} has no loaders to refresh`);
  const plans: Plan[] = items.map((item) => planUpsert(deps, row, { ...item, createNewDocStore: false }, [], { inPlace: true }));
  if (body.async) {
    const queue = queueOf(deps);
    const accepted: Accepted[] = [];
    for (const plan of plans) {
      const entry = await stagePlan(deps, bucket, plan);
      accepted.push({ docId: entry.id, storeId, status: "UPSERTING", message: "Accepted: the refresh continues in the queue" });
    }
    await queue.send({ kind: "document-store-upsert", storeId, loaderIds: accepted.map((a) => a.docId) });
    return accepted;
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

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
const isClientError = (err: unknown) => err instanceof ApiError && err.status < 500;

/**
 * The queue consumer's work for one message. A loader that cannot be processed is marked STALE
 * with its error and the others go on; a server or provider failure is rethrown (the queue retries).
 */
export async function runUpsertJob(deps: DocStoreDeps, bucket: R2Bucket, job: UpsertJob): Promise<void> {
  const row = await getStoreRow(deps.db, job.storeId);
  const plans: Plan[] = [];
  let retry: unknown;
  for (const loaderId of job.loaderIds) {
    try {
      plans.push(planSaved(deps, row, loaderId));
    } catch (err) {
      await markLoaderFailed(deps, job.storeId, loaderId, messageOf(err));
      if (!isClientError(err)) retry ??= err;
    }
  }
  if (plans.length) {
    await runInOrder(deps, bucket, job.storeId, plans, async (plan, err) => {
      await markLoaderFailed(deps, job.storeId, plan.entryId, messageOf(err));
      if (!isClientError(err)) retry ??= err;
    });
  }
  if (retry) throw retry;
}
