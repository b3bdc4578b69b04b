// The sandbox's limits: time (the whole call, and each stretch of computing without returning to
// the host's event loop), memory, stack, requests and timers. The two time limits are vars
// (TOOL_TIMEOUT_MS, default 5 s; TOOL_SLICE_MS, default 500 ms: the longest stretch a function may
// compute without awaiting a timer or a request — the isolate serves other requests only between
// such stretches — both at most 60 s), read from the one configuration (config.ts).
import { configOf } from "../config";

/** QuickJS's limit per run. In this build it counts allocations, not their sizes (see engine.ts). */
export const MEMORY_LIMIT_BYTES = 32 * 1024 * 1024;
/**
 * The engine's WebAssembly memory: where it starts (the build's own minimum) and the most it may grow
 * to, shared by the runs of one isolate. This is what bounds large arrays and strings: a run that
 * reaches it fails with the memory limit within a few hundred milliseconds, and the isolate (128 MB on
 * Cloudflare) keeps room for everything else.
 */
export const ENGINE_MEMORY_INITIAL_BYTES = 16 * 1024 * 1024;
export const ENGINE_MEMORY_MAX_BYTES = 64 * 1024 * 1024;
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
export const INTERRUPTS_PER_SECOND = 30_000;

export interface SandboxLimitsEnv {
  TOOL_TIMEOUT_MS?: unknown;
  TOOL_SLICE_MS?: unknown;
}

/** The time limit from TOOL_TIMEOUT_MS (milliseconds, 1 to 60000), else 5 s (config.ts). */
export const toolTimeoutMs = (env: SandboxLimitsEnv): number => configOf(env).TOOL_TIMEOUT_MS;

/** The longest computing stretch from TOOL_SLICE_MS (milliseconds, at most 60000), else 500 ms (config.ts). */
export const toolSliceMs = (env: SandboxLimitsEnv): number => configOf(env).TOOL_SLICE_MS;

export const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);
