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
  // stall that begins while the pinger pauses shows too (the pause's timer fires late) — the last
  // pause's included, which ends after the work did.
  const pinger = (async () => {
    let t0 = Date.now();
    let pause = 0;
    for (;;) {
      const res = await call("GET", "/ping", { token: null });
      if ((await res.text()) !== "pong") throw new Error(`/ping answered ${res.status}`);
      pings.push(Math.max(0, Date.now() - t0 - pause));
      if (done) return;
      t0 = Date.now();
      pause = PAUSE_MS;
      await sleep(PAUSE_MS);
      if (done) {
        pings.push(Math.max(0, Date.now() - t0 - PAUSE_MS));
        return;
      }
    }
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

/**
 * A body as a client's connection delivers it: 64 KB at a time, each piece in a later turn of the
 * event loop. A body made from a buffer in the test is all there at once, and reading it never
 * gives the isolate back: /ping would wait for the whole upload, which no network makes it do.
 */
export function arriving(raw: ArrayBuffer): ReadableStream<Uint8Array> {
  const bytes = new Uint8Array(raw);
  let at = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      await sleep(0);
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + 65_536));
      at += 65_536;
    },
  });
}

/** The slowest ping: what the tests hold to about a second. */
export const slowest = (pings: number[]) => Math.max(...pings);
