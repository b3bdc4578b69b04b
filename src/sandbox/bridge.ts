// The host side of a sandboxed function's async work. A `fetch` or timer inside QuickJS registers
// an operation with the host (__hostFetch / __hostTimer); the host runs it — fetch under the
// outbound URL policy, capped in count and size — and, once it completes, settles the QuickJS
// promise through the prelude's __settle. Operations complete in the host's event loop, so each
// completion is also the moment the sandbox last gave the isolate back to other requests.
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten";
import { type OutboundEnv, outboundFetch } from "../lib/outbound";
import { MAX_FETCHES, MAX_RESPONSE_BYTES, MAX_TIMERS } from "./limits";
import { errorMessage } from "../lib/error-message";

interface Operation {
  done: Promise<void>;
  outcome?: { ok: boolean; payload: string };
}

async function readCapped(res: Response, limit: number): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let out = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`the response is larger than ${limit / 1024 / 1024} MB`);
    }
    out += decoder.decode(value, { stream: true });
  }
  return out + decoder.decode();
}

export class HostBridge {
  private readonly ops = new Map<number, Operation>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private fetches = 0;
  /** Aborts the function's requests when the call ends. */
  private readonly controller = new AbortController();

  constructor(
    private readonly vm: QuickJSContext,
    private readonly env: OutboundEnv,
    private readonly timeoutMs: number,
    /** Called as each operation completes: control came back from the host's event loop. */
    private readonly returned: () => void,
  ) {}

  /** Defines __hostFetch and __hostTimer in the context (the prelude takes them away from the function). */
  install(): void {
    const { vm } = this;
    this.define("__hostFetch", (id, url, init) => this.start(vm.getNumber(id), () => this.fetch(vm.getString(url), vm.getString(init))));
    this.define("__hostTimer", (id, ms) => {
      if (this.timers.size >= MAX_TIMERS) throw new Error(`a function may have at most ${MAX_TIMERS} timers pending`);
      const delay = Math.max(0, Math.min(vm.getNumber(ms) || 0, this.timeoutMs + 1000));
      this.start(
        vm.getNumber(id),
        () =>
          new Promise((resolve) => {
            const timer = setTimeout(() => {
              this.timers.delete(timer);
              resolve("");
            }, delay);
            this.timers.add(timer);
          }),
      );
    });
  }

  /** Operations not yet handed back to the function. */
  get pending(): number {
    return this.ops.size;
  }

  /** Resolves when some operation has completed (or at once if one already has). */
  next(): Promise<void> {
    return Promise.race([...this.ops.values()].map((o) => o.done));
  }

  /** Settles the QuickJS promise of every completed operation; `check` throws what QuickJS reported. */
  settleCompleted(check: (result: { error?: QuickJSHandle; value?: QuickJSHandle }) => QuickJSHandle): void {
    const { vm } = this;
    for (const [id, op] of this.ops) {
      if (!op.outcome) continue;
      this.ops.delete(id);
      const settle = vm.getProp(vm.global, "__settle");
      const args = [vm.newNumber(id), op.outcome.ok ? vm.true : vm.false, vm.newString(op.outcome.payload)];
      try {
        check(vm.callFunction(settle, vm.undefined, ...args)).dispose();
      } finally {
        settle.dispose();
        args[0].dispose();
        args[2].dispose();
      }
    }
  }

  /** Stops what is still running: requests aborted, timers cleared. */
  close(reason?: unknown): void {
    this.controller.abort(reason);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private define(name: string, fn: (...args: QuickJSHandle[]) => void): void {
    const handle = this.vm.newFunction(name, fn);
    this.vm.setProp(this.vm.global, name, handle);
    handle.dispose();
  }

  private start(id: number, work: () => Promise<string>): void {
    const op: Operation = { done: Promise.resolve() };
    const finish = (outcome: Operation["outcome"]) => {
      op.outcome = outcome;
      this.returned();
    };
    op.done = work().then(
      (payload) => finish({ ok: true, payload }),
      (err) => finish({ ok: false, payload: errorMessage(err) }),
    );
    this.ops.set(id, op);
  }

  private async fetch(url: string, initJson: string): Promise<string> {
    if (++this.fetches > MAX_FETCHES) throw new Error(`a function may make at most ${MAX_FETCHES} requests`);
    const init = JSON.parse(initJson) as { method?: unknown; headers?: Record<string, string>; body?: unknown };
    const method = typeof init.method === "string" && init.method ? init.method.toUpperCase() : "GET";
    const body = typeof init.body === "string" && method !== "GET" && method !== "HEAD" ? init.body : undefined;
    let res: Response;
    try {
      res = await outboundFetch(url, { method, headers: init.headers ?? {}, body, signal: this.controller.signal }, this.env);
    } catch (err) {
      if (err instanceof Error && (err.name === "OutboundRefused" || err.name === "RedirectRefused")) throw err;
      throw new Error(`fetch ${url.slice(0, 200)} failed: ${errorMessage(err)}`);
    }
    const text = await readCapped(res, MAX_RESPONSE_BYTES);
    return JSON.stringify({
      status: res.status,
      statusText: res.statusText,
      url: res.url || url,
      redirected: res.redirected,
      headers: [...res.headers],
      body: text,
    });
  }
}
