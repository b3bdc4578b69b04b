// Runs one function body in a fresh QuickJS runtime and context, disposed after it. The host stops
// the function from QuickJS's interrupt handler when the run is aborted, its time limit passes,
// its instruction budget runs out (where the clock stands still), or it has computed for longer
// than the slice limit since control last came back from the host's event loop — a function that
// never awaits host work would otherwise hold the isolate, and every other request, until its time
// limit. Awaited work (fetch, timers) goes through the bridge and does not count as computing.
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten";
import { RunAborted } from "../lib/run-control";
import { HostBridge } from "./bridge";
import { discardQuickjs, engineMemoryFull, quickjs } from "./engine";
import { SandboxError, type Stop, type StopLimits, failureOf, memoryFailure, stopFailure, syntaxMessage } from "./errors";
import { INTERRUPTS_PER_SECOND, MEMORY_LIMIT_BYTES, STACK_LIMIT_BYTES, type SandboxLimitsEnv, toolSliceMs, toolTimeoutMs } from "./limits";
import { FILENAME, PRELUDE, wrap } from "./prelude";
import type { OutboundEnv } from "../lib/outbound";

interface SandboxEnv extends OutboundEnv, SandboxLimitsEnv {}

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
  /** Longest computing stretch between host awaits. Default: TOOL_SLICE_MS, else 500 ms. */
  sliceMs?: number;
  /** The run's signal: aborting it stops the function. */
  signal?: AbortSignal;
}

/** Jobs in one run of the queue past which a stall is a chain that died for memory, not a wait. */
const CHAIN_JOBS = 2_000;

/**
 * Runs a function body and answers its result as a string. Throws SandboxError when the function
 * throws, does not parse, exceeds its time, slice, memory or stack limit, or awaits something that
 * can never happen; RunAborted when the run's signal aborts.
 */
export async function runSandboxed(body: string, run: SandboxRun): Promise<string> {
  const engine = await quickjs();
  const limits: StopLimits = { timeoutMs: run.timeoutMs ?? toolTimeoutMs(run.env), sliceMs: run.sliceMs ?? toolSliceMs(run.env) };
  const deadline = Date.now() + limits.timeoutMs;
  const budget = Math.max(1, Math.ceil((limits.timeoutMs / 1000) * INTERRUPTS_PER_SECOND));
  const sliceBudget = Math.max(1, Math.ceil((limits.sliceMs / 1000) * INTERRUPTS_PER_SECOND));
  let interrupts = 0;
  // The current computing stretch: since when, and how many interrupts (for a clock that stands still).
  let sliceStart = Date.now();
  let sliceInterrupts = 0;
  let stop: Stop | undefined;
  let healthy = true;

  const runtime = engine.newRuntime();
  runtime.setMemoryLimit(MEMORY_LIMIT_BYTES);
  runtime.setMaxStackSize(STACK_LIMIT_BYTES);
  runtime.setInterruptHandler(() => {
    const now = Date.now();
    if (run.signal?.aborted) stop = "abort";
    else if (now > deadline) stop = "timeout";
    else if (now - sliceStart > limits.sliceMs || ++sliceInterrupts > sliceBudget) stop = "slice";
    else if (++interrupts > budget) stop = "budget";
    return stop !== undefined;
  });
  const vm = runtime.newContext();
  const bridge = new HostBridge(vm, run.env, limits.timeoutMs, () => {
    sliceStart = Date.now();
    sliceInterrupts = 0;
  });
  const onAbort = () => bridge.close(run.signal?.reason);
  run.signal?.addEventListener("abort", onAbort);
  let promise: QuickJSHandle | undefined;

  const failure = (dumped: unknown): Error => failureOf(dumped, stop, limits);
  const check = <T>(result: { error?: QuickJSHandle; value?: T }, ctx: QuickJSContext): T => {
    if (result.error) throw failure(result.error.consume((e) => ctx.dump(e)));
    // A job cut short by the interrupt handler is not always reported as an error: the stop is.
    if (stop) throw stopFailure(stop, limits);
    return result.value as T;
  };
  /**
   * Runs QuickJS's pending jobs. A job never throws what the function threw (that rejects a
   * promise); it fails only when QuickJS itself gives up, and a null error then means it ran out of
   * memory while making its own error (a promise chain that grows forever ends this way).
   */
  const runJobs = (): number => {
    const jobs = runtime.executePendingJobs();
    if (jobs.error) {
      const dumped = jobs.error.consume((e) => vm.dump(e));
      throw !stop && (dumped === null || dumped === undefined) ? memoryFailure() : failure(dumped);
    }
    if (stop) throw stopFailure(stop, limits);
    return jobs.value;
  };

  try {
    bridge.install();
    const input = vm.newString(
      JSON.stringify({ args: run.args ?? {}, declared: run.declared ?? [], vars: run.vars ?? {}, flow: run.flow ?? {} }),
    );
    vm.setProp(vm.global, "__input", input);
    input.dispose();
    check(vm.evalCode(PRELUDE, "prelude.js"), vm).dispose();

    const evaluated = vm.evalCode(wrap(body), FILENAME);
    if (evaluated.error) {
      const dumped = evaluated.error.consume((e) => vm.dump(e));
      if (!stop && dumped && typeof dumped === "object" && (dumped as { name?: unknown }).name === "SyntaxError") {
        throw new SandboxError(`The function does not parse: ${syntaxMessage(dumped, FILENAME)}`, "syntax");
      }
      throw failure(dumped);
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
        const ran = runJobs();
        const state = vm.getPromiseState(promise);
        if (state.type === "fulfilled") {
          const value = state.notAPromise ? vm.dump(promise) : state.value.consume((v) => vm.dump(v));
          return typeof value === "string" ? value : (JSON.stringify(value) ?? "");
        }
        if (state.type === "rejected") throw failure(state.error.consume((e) => vm.dump(e)));
        if (!bridge.pending) {
          // A chain of jobs that grew until QuickJS could not queue the next one (out of memory, which
          // it then cannot even pass back up the chain) ends with nothing left to run, like a promise
          // that can never settle; but it got there through thousands of jobs, or a long stretch
          // of computing without the host.
          if (ran >= CHAIN_JOBS || sliceInterrupts >= sliceBudget / 5) throw memoryFailure();
          throw new SandboxError("The function awaits something that can never happen (its promise can no longer settle)", "stalled");
        }
        const next = await Promise.race([bridge.next(), expired, aborted]);
        if (next === "aborted" || run.signal?.aborted) {
          stop = "abort";
          throw new RunAborted();
        }
        if (next === "expired" || Date.now() > deadline) {
          stop = "timeout";
          throw stopFailure(stop, limits);
        }
        bridge.settleCompleted((result) => check(result, vm));
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
    if (/out of memory/i.test(String((err as Error)?.message))) throw memoryFailure();
    throw err;
  } finally {
    run.signal?.removeEventListener("abort", onAbort);
    bridge.close();
    if (healthy) {
      try {
        promise?.dispose();
        vm.dispose();
        runtime.dispose();
      } catch {
        healthy = false;
      }
    }
    // A grown memory never shrinks: past most of its maximum, the next run gets a fresh engine.
    if (!healthy || engineMemoryFull()) discardQuickjs();
  }
}
