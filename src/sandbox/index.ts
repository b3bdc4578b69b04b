// Untrusted JavaScript (a custom tool's `func`) run in QuickJS, isolated from the worker: a fresh
// runtime and context per call, disposed after it; a time limit (an interrupt handler plus a
// deadline for awaited work), a memory limit and a stack limit; no access to the worker's globals.
//
// The function body runs as the body of an async function, so it may `await` and `return`. It sees
// its arguments as `$<name>` variables, `$vars` (the flow's variables) and `$flow` (chatflowId,
// chatId, sessionId, input), `console` (ignored), `setTimeout`, and `fetch` — the host's fetch under
// the outbound URL policy (src/lib/outbound.ts), also available as `require("node-fetch")`, which
// Flowise's custom tool examples use. The result is a string: strings as they are, other values
// JSON-stringified, undefined as "".
//
// Async work never blocks the sandbox: a `fetch` or timer inside QuickJS registers an operation
// with the host; the host awaits it and settles the QuickJS promise, then runs QuickJS's pending
// jobs, until the function's promise settles, the time limit passes, or nothing is left to await.
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten";
import { RunAborted } from "../providers/chat/http";
import { type OutboundEnv, outboundFetch } from "../lib/outbound";
import { discardQuickjs, quickjs } from "./engine";

export const DEFAULT_TIMEOUT_MS = 5_000;
export const MAX_TIMEOUT_MS = 60_000;
export const MEMORY_LIMIT_BYTES = 32 * 1024 * 1024;
/**
 * QuickJS's own stack check. Deep recursion inside native code (JSON of deeply nested values) can
 * still exhaust the worker's stack first: that surfaces as a host RangeError, reported as a stack
 * failure, and the engine instance is replaced (its state cannot be trusted after it).
 */
export const STACK_LIMIT_BYTES = 256 * 1024;
export const MAX_FETCHES = 20;
export const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;
/** Timers pending at once (each is a host timer). */
export const MAX_TIMERS = 1_000;
/**
 * Workers freeze Date.now() while JavaScript runs without I/O (a Spectre mitigation), so on
 * Cloudflare a busy loop cannot be timed by the clock: there the interrupt handler also counts its
 * calls. QuickJS calls it every 10,000 loop iterations or function calls, which is 300 to 26,000
 * times a second depending on the loop's body (measured on a dev machine): the budget below lets
 * the fastest loops run about as long as the time limit, heavier ones longer (bound them with the
 * worker's CPU limit). Where the clock moves (wrangler dev, tests, and across every await), the
 * time limit itself stops the function first.
 */
const INTERRUPTS_PER_SECOND = 30_000;
const FILENAME = "tool.js";

export type SandboxFailure = "timeout" | "memory" | "stack" | "thrown" | "syntax" | "stalled";

/** The function failed: it threw, ran out of time or memory, or does not parse. */
export class SandboxError extends Error {
  constructor(
    message: string,
    readonly reason: SandboxFailure,
  ) {
    super(message);
    this.name = "SandboxError";
  }
}

export interface SandboxEnv extends OutboundEnv {
  TOOL_TIMEOUT_MS?: unknown;
}

export interface SandboxRun {
  /** Each becomes a `$<name>` variable. */
  args?: Record<string, unknown>;
  /** Argument names that exist even when not given (as undefined rather than a ReferenceError). */
  declared?: string[];
  vars?: Record<string, unknown>;
  flow?: Record<string, unknown>;
  env: SandboxEnv;
  /** Default: TOOL_TIMEOUT_MS, else 5 s. */
  timeoutMs?: number;
  /** The run's signal: aborting it stops the function. */
  signal?: AbortSignal;
}

/** The time limit from TOOL_TIMEOUT_MS (milliseconds, 1 to 60000), else 5 s. */
export function toolTimeoutMs(env: SandboxEnv): number {
  const n = Number(env.TOOL_TIMEOUT_MS);
  return Number.isFinite(n) && n > 0 ? Math.min(Math.floor(n), MAX_TIMEOUT_MS) : DEFAULT_TIMEOUT_MS;
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/** The body placed in an async function; the prefix stays on the body's first line, so line numbers match. */
const wrap = (body: string) => `__finish((async function () {${body}\n})())`;

// Runs inside QuickJS before the function: the globals it may use.
const PRELUDE = String.raw`(() => {
  const input = JSON.parse(globalThis.__input);
  delete globalThis.__input;
  const hostFetch = globalThis.__hostFetch;
  const hostTimer = globalThis.__hostTimer;
  delete globalThis.__hostFetch;
  delete globalThis.__hostTimer;
  for (const name of input.declared) globalThis["$" + name] = undefined;
  for (const [name, value] of Object.entries(input.args)) globalThis["$" + name] = value;
  globalThis.$vars = input.vars;
  globalThis.$flow = input.flow;

  let nextId = 1;
  const pending = new Map();
  const timers = new Map();

  const plainHeaders = (h) => {
    const out = {};
    if (!h) return out;
    if (typeof h.forEach === "function" && !Array.isArray(h)) h.forEach((v, k) => { out[String(k)] = String(v); });
    else if (Array.isArray(h)) for (const [k, v] of h) out[String(k)] = String(v);
    else for (const k of Object.keys(h)) out[k] = String(h[k]);
    return out;
  };

  const response = (r) => {
    const headers = new Map(r.headers.map(([k, v]) => [String(k).toLowerCase(), v]));
    let used = false;
    const read = () => {
      if (used) return Promise.reject(new TypeError("Body has already been used"));
      used = true;
      return Promise.resolve(r.body);
    };
    return {
      ok: r.status >= 200 && r.status < 300,
      status: r.status,
      statusText: r.statusText,
      url: r.url,
      redirected: r.redirected,
      headers: {
        get: (name) => (headers.has(String(name).toLowerCase()) ? headers.get(String(name).toLowerCase()) : null),
        has: (name) => headers.has(String(name).toLowerCase()),
        forEach: (fn) => headers.forEach((v, k) => fn(v, k)),
        entries: () => headers.entries(),
        keys: () => headers.keys(),
        values: () => headers.values(),
      },
      get bodyUsed() { return used; },
      text: () => read(),
      json: () => read().then((t) => JSON.parse(t)),
    };
  };

  const fetch = function fetch(resource, init) {
    return new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, {
        resolve: (payload) => resolve(response(JSON.parse(payload))),
        reject: (message) => reject(new TypeError(message)),
      });
      const url = typeof resource === "string" ? resource : resource && typeof resource.url === "string" ? resource.url : String(resource);
      const o = init || {};
      let body = o.body;
      if (body !== undefined && body !== null && typeof body !== "string") body = typeof body === "object" ? JSON.stringify(body) : String(body);
      hostFetch(id, url, JSON.stringify({ method: o.method, headers: plainHeaders(o.headers), body: body === null ? undefined : body }));
    });
  };
  fetch.default = fetch;
  globalThis.fetch = fetch;

  globalThis.setTimeout = (fn, ms, ...rest) => {
    const id = nextId++;
    timers.set(id, () => { if (typeof fn === "function") fn(...rest); });
    hostTimer(id, Number(ms) || 0);
    return id;
  };
  globalThis.clearTimeout = (id) => { timers.delete(id); };

  globalThis.__settle = (id, ok, payload) => {
    const timer = timers.get(id);
    if (timer) {
      timers.delete(id);
      try { timer(); } catch (e) {}
      return;
    }
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    if (ok) p.resolve(payload); else p.reject(payload);
  };

  const ignore = () => {};
  globalThis.console = { log: ignore, info: ignore, warn: ignore, error: ignore, debug: ignore, trace: ignore };

  const MODULES = { "node-fetch": fetch, "cross-fetch": fetch, "isomorphic-fetch": fetch };
  globalThis.require = (name) => {
    if (Object.prototype.hasOwnProperty.call(MODULES, name)) return MODULES[name];
    throw new Error("require('" + name + "') is not available in this sandbox; fetch is (also as require('node-fetch'))");
  };

  const text = (value) => {
    if (typeof value === "string") return value;
    if (value === undefined) return "";
    try {
      const json = JSON.stringify(value);
      return json === undefined ? String(value) : json;
    } catch (e) {
      return String(value);
    }
  };
  const failure = (e) => {
    if (e instanceof Error || (e && typeof e === "object" && "message" in e)) {
      const name = e.name && e.name !== "Error" ? String(e.name) + ": " : "";
      return { __sandboxFailure: true, message: name + String(e.message) };
    }
    return { __sandboxFailure: true, message: text(e) };
  };
  globalThis.__finish = (promise) => promise.then(text, (e) => { throw failure(e); });
})();`;

interface Operation {
  done: Promise<void>;
  outcome?: { ok: boolean; payload: string };
}

const errorText = (e: unknown): string => {
  if (e && typeof e === "object") {
    const o = e as { name?: unknown; message?: unknown };
    if (typeof o.message === "string") return o.name && o.name !== "Error" ? `${String(o.name)}: ${o.message}` : o.message;
  }
  return typeof e === "string" ? e : JSON.stringify(e);
};

/** A SandboxError for what QuickJS threw (a dumped value). */
type Stop = "timeout" | "budget" | "abort";

function failureOf(dumped: unknown, stop: Stop | undefined, timeoutMs: number): Error {
  if (stop === "abort") return new RunAborted();
  if (stop === "timeout") return new SandboxError(`The function ran longer than its time limit of ${seconds(timeoutMs)} and was stopped`, "timeout");
  if (stop === "budget") {
    return new SandboxError(`The function computed for longer than its time limit of ${seconds(timeoutMs)} allows (its instruction budget) and was stopped`, "timeout");
  }
  const message = dumped && typeof dumped === "object" && (dumped as { __sandboxFailure?: unknown }).__sandboxFailure
    ? String((dumped as { message: unknown }).message)
    : errorText(dumped);
  if (/out of memory/i.test(message)) return new SandboxError(`The function used more than its memory limit of ${MEMORY_LIMIT_BYTES / 1024 / 1024} MB`, "memory");
  if (/stack overflow|call stack size/i.test(message)) return new SandboxError(`The function exceeded its stack limit (recursion too deep): ${message}`, "stack");
  return new SandboxError(message, "thrown");
}

/** A syntax error's message with its line in the function body. */
function syntaxMessage(dumped: unknown): string {
  const stack = dumped && typeof dumped === "object" ? String((dumped as { stack?: unknown }).stack ?? "") : "";
  const line = new RegExp(`${FILENAME.replace(".", "\\.")}:(\\d+)`).exec(stack)?.[1];
  return `${errorText(dumped)}${line ? ` (line ${line})` : ""}`;
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

/**
 * Checks that a function body parses (compiles it without running it). Answers the syntax error
 * with its line, or undefined when it parses.
 */
export async function checkFunctionSyntax(body: string): Promise<string | undefined> {
  const engine = await quickjs();
  const runtime = engine.newRuntime();
  runtime.setMemoryLimit(MEMORY_LIMIT_BYTES);
  runtime.setMaxStackSize(STACK_LIMIT_BYTES);
  let interrupts = 0;
  runtime.setInterruptHandler(() => ++interrupts > INTERRUPTS_PER_SECOND);
  const vm = runtime.newContext();
  let healthy = true;
  try {
    const result = vm.evalCode(wrap(body), FILENAME, { compileOnly: true });
    if (result.error) return syntaxMessage(result.error.consume((e) => vm.dump(e)));
    result.value.dispose();
    return undefined;
  } catch (err) {
    healthy = false; // see runSandboxed
    if (err instanceof RangeError) return "the function is nested too deeply to compile";
    throw err;
  } finally {
    if (healthy) {
      try {
        vm.dispose();
        runtime.dispose();
      } catch {
        healthy = false;
      }
    }
    if (!healthy) discardQuickjs();
  }
}

/**
 * Runs a function body and answers its result as a string. Throws SandboxError when the function
 * throws, does not parse, exceeds its time, memory or stack limit, or awaits something that can
 * never happen; RunAborted when the run's signal aborts.
 */
export async function runSandboxed(body: string, run: SandboxRun): Promise<string> {
  const engine = await quickjs();
  const timeoutMs = run.timeoutMs ?? toolTimeoutMs(run.env);
  const deadline = Date.now() + timeoutMs;
  const budget = Math.max(1, Math.ceil((timeoutMs / 1000) * INTERRUPTS_PER_SECOND));
  let interrupts = 0;
  let stop: Stop | undefined;
  const controller = new AbortController();
  const onAbort = () => controller.abort(run.signal?.reason);
  run.signal?.addEventListener("abort", onAbort);
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const ops = new Map<number, Operation>();
  let fetches = 0;
  let healthy = true;

  const runtime = engine.newRuntime();
  runtime.setMemoryLimit(MEMORY_LIMIT_BYTES);
  runtime.setMaxStackSize(STACK_LIMIT_BYTES);
  runtime.setInterruptHandler(() => {
    if (run.signal?.aborted) stop = "abort";
    else if (Date.now() > deadline) stop = "timeout";
    else if (++interrupts > budget) stop = "budget";
    return stop !== undefined;
  });
  const vm = runtime.newContext();
  let promise: QuickJSHandle | undefined;

  const start = (id: number, work: () => Promise<string>) => {
    const op: Operation = { done: Promise.resolve() };
    op.done = work().then(
      (payload) => void (op.outcome = { ok: true, payload }),
      (err) => void (op.outcome = { ok: false, payload: err instanceof Error ? err.message : String(err) }),
    );
    ops.set(id, op);
  };

  const doFetch = async (url: string, initJson: string): Promise<string> => {
    if (++fetches > MAX_FETCHES) throw new Error(`a function may make at most ${MAX_FETCHES} requests`);
    const init = JSON.parse(initJson) as { method?: unknown; headers?: Record<string, string>; body?: unknown };
    const method = typeof init.method === "string" && init.method ? init.method.toUpperCase() : "GET";
    const body = typeof init.body === "string" && method !== "GET" && method !== "HEAD" ? init.body : undefined;
    let res: Response;
    try {
      res = await outboundFetch(url, { method, headers: init.headers ?? {}, body, signal: controller.signal }, run.env);
    } catch (err) {
      if (err instanceof Error && err.name === "OutboundRefused") throw err;
      throw new Error(`fetch ${url.slice(0, 200)} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    const text = await readCapped(res, MAX_RESPONSE_BYTES);
    return JSON.stringify({ status: res.status, statusText: res.statusText, url: res.url || url, redirected: res.redirected, headers: [...res.headers], body: text });
  };

  const define = (name: string, fn: (...args: QuickJSHandle[]) => void) => {
    const handle = vm.newFunction(name, fn);
    vm.setProp(vm.global, name, handle);
    handle.dispose();
  };

  /** Throws the failure when QuickJS reported an error (a dumped handle). */
  const check = <T>(result: { error?: QuickJSHandle; value?: T }, ctx: QuickJSContext): T => {
    if (result.error) throw failureOf(result.error.consume((e) => ctx.dump(e)), stop, timeoutMs);
    return result.value as T;
  };

  try {
    define("__hostFetch", (id, url, init) => start(vm.getNumber(id), () => doFetch(vm.getString(url), vm.getString(init))));
    define("__hostTimer", (id, ms) => {
      if (timers.size >= MAX_TIMERS) throw new Error(`a function may have at most ${MAX_TIMERS} timers pending`);
      const delay = Math.max(0, Math.min(vm.getNumber(ms) || 0, timeoutMs + 1000));
      start(vm.getNumber(id), () => new Promise((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve("");
        }, delay);
        timers.add(timer);
      }));
    });
    const input = vm.newString(JSON.stringify({ args: run.args ?? {}, declared: run.declared ?? [], vars: run.vars ?? {}, flow: run.flow ?? {} }));
    vm.setProp(vm.global, "__input", input);
    input.dispose();
    check(vm.evalCode(PRELUDE, "prelude.js"), vm).dispose();

    const evaluated = vm.evalCode(wrap(body), FILENAME);
    if (evaluated.error) {
      const dumped = evaluated.error.consume((e) => vm.dump(e));
      if (!stop && dumped && typeof dumped === "object" && (dumped as { name?: unknown }).name === "SyntaxError") {
        throw new SandboxError(`The function does not parse: ${syntaxMessage(dumped)}`, "syntax");
      }
      throw failureOf(dumped, stop, timeoutMs);
    }
    promise = evaluated.value;

    let timeoutTimer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<"expired">((resolve) => {
      timeoutTimer = setTimeout(() => resolve("expired"), Math.max(0, deadline - Date.now()));
    });
    const aborted = new Promise<"aborted">((resolve) => {
      if (run.signal?.aborted) resolve("aborted");
      run.signal?.addEventListener("abort", () => resolve("aborted"));
    });
    try {
      for (;;) {
        check(runtime.executePendingJobs(), vm);
        const state = vm.getPromiseState(promise);
        if (state.type === "fulfilled") {
          const value = state.notAPromise ? vm.dump(promise) : state.value.consume((v) => vm.dump(v));
          return typeof value === "string" ? value : JSON.stringify(value) ?? "";
        }
        if (state.type === "rejected") throw failureOf(state.error.consume((e) => vm.dump(e)), stop, timeoutMs);
        // A chain of promises that never ends (each job queueing the next) is cut by the interrupt
        // handler and then looks stalled: it ran out of time, and says so.
        if (stop) throw failureOf(undefined, stop, timeoutMs);
        if (!ops.size) {
          throw new SandboxError("The function awaits something that can never happen (its promise can no longer settle)", "stalled");
        }
        const next = await Promise.race([...[...ops.values()].map((o) => o.done), expired, aborted]);
        if (next === "aborted" || run.signal?.aborted) {
          stop = "abort";
          throw new RunAborted();
        }
        if (next === "expired" || Date.now() > deadline) {
          stop = "timeout";
          throw failureOf(undefined, stop, timeoutMs);
        }
        for (const [id, op] of ops) {
          if (!op.outcome) continue;
          ops.delete(id);
          const settle = vm.getProp(vm.global, "__settle");
          const args = [vm.newNumber(id), op.outcome.ok ? vm.true : vm.false, vm.newString(op.outcome.payload)];
          try {
            check(vm.callFunction(settle, vm.undefined, ...args), vm).dispose();
          } finally {
            settle.dispose();
            args[0].dispose();
            args[2].dispose();
          }
        }
      }
    } finally {
      if (timeoutTimer !== undefined) clearTimeout(timeoutTimer);
    }
  } catch (err) {
    if (err instanceof SandboxError || err instanceof RunAborted) throw err;
    // QuickJS was cut short by the host itself (the worker's stack, a trap, an allocation the host
    // made for it): its memory may be inconsistent, so this engine instance is not used again.
    healthy = false;
    if (err instanceof RangeError) throw new SandboxError("The function exceeded its stack limit (recursion too deep)", "stack");
    if (/out of memory/i.test(String((err as Error)?.message))) {
      throw new SandboxError(`The function used more than its memory limit of ${MEMORY_LIMIT_BYTES / 1024 / 1024} MB`, "memory");
    }
    throw err;
  } finally {
    run.signal?.removeEventListener("abort", onAbort);
    controller.abort();
    for (const t of timers) clearTimeout(t);
    if (healthy) {
      try {
        promise?.dispose();
        vm.dispose();
        runtime.dispose();
      } catch {
        healthy = false;
      }
    }
    if (!healthy) discardQuickjs();
  }
}
