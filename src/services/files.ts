/** Deletes every R2 object under a prefix, a page (≤ 1000 keys) at a time. */
export async function deleteFilesUnder(bucket: R2Bucket, prefix: string): Promise<number> {
  let deleted = 0;
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, cursor, limit: 1000 });
    const keys = page.objects.map((o) => o.key);
    if (keys.length) await bucket.delete(keys);
    deleted += keys.length;
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return deleted;
}

/**
 * Where an asynchronous run keeps its files in R2: the uploads and the webhook payload it was
 * started with, and step results too large for the Workflow's state.
 */
export const executionFilesPrefix = (executionId: string) => `executions/${executionId}/`;

/** Executions' files removed this many executions at a time. */
const PARALLEL = 6;

/**
 * Removes the R2 files of executions whose rows were deleted. Called after the rows went (so a
 * failure here never leaves a row pointing at nothing), usually through waitUntil: a failure is
 * logged, not answered.
 */
export async function deleteExecutionFiles(bucket: R2Bucket, executionIds: string[]): Promise<void> {
  const ids = [...new Set(executionIds)];
  for (let at = 0; at < ids.length; at += PARALLEL) {
    const results = await Promise.allSettled(ids.slice(at, at + PARALLEL).map((id) => deleteFilesUnder(bucket, executionFilesPrefix(id))));
    for (const [i, r] of results.entries())
      if (r.status === "rejected") console.error(`execution ${ids[at + i]}: its files were not removed: ${String(r.reason)}`);
  }
}
