// The upsert queue's consumer: runs the document store jobs that `async: true` upserts and
// refreshes enqueued. A loader that cannot be processed is recorded on the store and acked; a
// server or provider failure is retried (up to the queue's max_retries), then recorded and acked.
import { createDb } from "../db";
import type { Env } from "../env";
import { errorText, redact } from "../lib/redact";
import { workerSecretValues } from "../lib/secrets";
import type { DocStoreDeps } from "../services/document-store/types";
import { createServices } from "../services/container";
import { type UpsertJob, runUpsertJob } from "../services/document-store/upsert";

const MAX_ATTEMPTS = 3;

const isJob = (body: unknown): body is UpsertJob =>
  !!body &&
  typeof body === "object" &&
  (body as UpsertJob).kind === "document-store-upsert" &&
  typeof (body as UpsertJob).storeId === "string" &&
  Array.isArray((body as UpsertJob).loaderIds);

export async function queue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  // The same services as a request's: the consumer reads credentials the way a run does.
  const deps: DocStoreDeps = createServices({ db: createDb(env.DB), env, request: { id: "upsert queue", waitUntil: () => undefined } });
  for (const message of batch.messages) {
    if (!isJob(message.body)) {
      console.error(`upsert queue: dropping a message that is not a document store job (${message.id})`);
      message.ack();
      continue;
    }
    try {
      await runUpsertJob(deps, message.body, message.attempts >= MAX_ATTEMPTS);
      message.ack();
    } catch (err) {
      console.error(
        `upsert queue: job for store ${message.body.storeId} failed ` +
          `(attempt ${message.attempts}): ${redact(errorText(err), workerSecretValues(env))}`,
      );
      if (message.attempts < MAX_ATTEMPTS) message.retry({ delaySeconds: 2 * message.attempts });
      else message.ack();
    }
  }
}
