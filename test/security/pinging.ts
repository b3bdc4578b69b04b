// Requests run while /ping is called over and over: each security test that sends work meant to
// stall the worker shows both the refusal and that the server kept answering meanwhile.
import { call, sleep } from "../helpers";

export interface Pinged<T> {
  result: T;
  /** Latency of each /ping answered while the work ran, in ms. */
  pings: number[];
}

/**
 * Runs `work` while /ping is called back to back (the first call starts with the work), and
 * answers the work's result with every ping's latency. workerd's clock moves in tests, so a ping
 * stuck behind work that holds the isolate shows as a long latency.
 */
const PAUSE_MS = 25;

export async function whilePinging<T>(work: () => Promise<T>): Promise<Pinged<T>> {
  let done = false;
  const pings: number[] = [];
  // Each latency counts from the end of the previous answer, less the pause between pings: a
  // stall that begins while the pinger pauses shows too (the pause's timer fires late).
  const pinger = (async () => {
    let t0 = Date.now();
    do {
      const res = await call("GET", "/ping", { token: null });
      if ((await res.text()) !== "pong") throw new Error(`/ping answered ${res.status}`);
      pings.push(Math.max(0, Date.now() - t0 - PAUSE_MS));
      t0 = Date.now();
      await sleep(PAUSE_MS);
    } while (!done);
  })();
  try {
    const result = await work();
    return { result, pings };
  } finally {
    done = true;
    await pinger;
  }
}

/**
 * A form as the bytes a client sends. Serialising a FormData with megabytes of file takes workerd
 * most of a second, synchronously, and the test shares the worker's isolate: done before the
 * pinging starts, it cannot pass for the server's own stall.
 */
export async function multipart(form: FormData): Promise<{ raw: ArrayBuffer; headers: Record<string, string> }> {
  const req = new Request("http://form.test/", { method: "POST", body: form });
  return { raw: await req.arrayBuffer(), headers: { "content-type": req.headers.get("content-type")! } };
}

/** The slowest ping: what the tests hold to about a second. */
export const slowest = (pings: number[]) => Math.max(...pings);
