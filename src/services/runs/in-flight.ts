/**
 * Runs in progress in this isolate, by (chatflow, chat), so PUT /chatmessage/abort can stop one.
 *
 * Workers forbid one request from touching another request's I/O, and aborting a controller
 * cancels the run's fetches. So the abort request only raises a flag; a timer created by the
 * running request (and so living in its context) sees the flag and aborts there.
 * An abort reaches only the isolate running the chat; a client disconnect always works.
 * Every poll wakes the isolate (CPU billed to the run): 200 ms is 5 a second of a long answer, and
 * still well within what a person pressing stop notices.
 */
const POLL_MS = 200;
const requested = new Map<string, { abort: boolean }>();
const key = (chatflowid: string, chatId: string) => `${chatflowid}|${chatId}`;

export function trackRun(chatflowid: string, chatId: string, controller: AbortController): () => void {
  const k = key(chatflowid, chatId);
  const flag = { abort: false };
  requested.set(k, flag);
  const timer = setInterval(() => {
    if (flag.abort) controller.abort(new Error("Aborted by the user"));
  }, POLL_MS);
  return () => {
    clearInterval(timer);
    if (requested.get(k) === flag) requested.delete(k);
  };
}

export function abortRun(chatflowid: string, chatId: string): boolean {
  const flag = requested.get(key(chatflowid, chatId));
  if (!flag) return false;
  flag.abort = true;
  return true;
}
