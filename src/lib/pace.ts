// Cooperative yielding for CPU-heavy loops (parsing, splitting, hashing, embedding). One isolate
// serves many requests; JavaScript that runs without awaiting I/O keeps every other request
// waiting. Awaiting a resolved promise does not help (microtasks run before any I/O): a loop has to
// go back to the event loop, which scheduler.wait(0) (or a zero timer) does.

/** Lets the event loop run (other requests, timers, I/O) before going on. */
export function yieldToEventLoop(): Promise<void> {
  const s = (globalThis as { scheduler?: { wait?: (ms: number) => Promise<void> } }).scheduler;
  return typeof s?.wait === "function" ? s.wait(0) : new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Waits `ms`, or less when `signal` aborts first (the caller checks it): a poll between requests
 * to a slow service. Its abort listener goes with the wait.
 */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Longest stretch of work between yields. */
const SLICE_MS = 20;
/**
 * Steps between yields whatever the clock says: on Cloudflare the clock stands still while code
 * runs without I/O, so counting is what bounds a stretch there.
 */
const SLICE_STEPS = 2_000;

/**
 * Decides when a loop yields: `tick()` answers a promise to await when the loop has run for
 * SLICE_MS or `steps` ticks since it last yielded, otherwise undefined (awaiting nothing costs
 * nothing). Steps should be of roughly even cost; give heavier steps a smaller `steps`, or a
 * step of uneven cost its weight (`tick(3)` counts as three).
 */
export class Pacer {
  private last = Date.now();
  private count = 0;

  constructor(private readonly steps = SLICE_STEPS) {}

  tick(weight = 1): Promise<void> | undefined {
    this.count += weight;
    if (this.count < this.steps && Date.now() - this.last < SLICE_MS) return undefined;
    return this.yield();
  }

  async yield(): Promise<void> {
    await yieldToEventLoop();
    this.count = 0;
    this.last = Date.now();
  }
}
