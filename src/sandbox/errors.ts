// How a sandboxed function failed, as a message the model (or the caller) can read.
import { RunAborted } from "../lib/run-control";
import { engineMemoryFull } from "./engine";
import { ENGINE_MEMORY_MAX_BYTES, MEMORY_LIMIT_BYTES, seconds } from "./limits";

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

/**
 * Why the host stopped the function: its time limit, its instruction budget (where the clock stands
 * still), a computing stretch over the slice limit, or the run's abort.
 */
export type Stop = "timeout" | "budget" | "slice" | "abort";

export interface StopLimits {
  timeoutMs: number;
  sliceMs: number;
}

const errorText = (e: unknown): string => {
  if (e && typeof e === "object") {
    const o = e as { name?: unknown; message?: unknown };
    if (typeof o.message === "string") return o.name && o.name !== "Error" ? `${String(o.name)}: ${o.message}` : o.message;
  }
  return typeof e === "string" ? e : JSON.stringify(e);
};

/** The memory failure: the engine's own maximum when its memory grew to it, else the run's limit. */
export const memoryFailure = () =>
  engineMemoryFull()
    ? new SandboxError(`The function used more than the sandbox's memory limit of ${ENGINE_MEMORY_MAX_BYTES / 1024 / 1024} MB`, "memory")
    : new SandboxError(`The function used more than its memory limit of ${MEMORY_LIMIT_BYTES / 1024 / 1024} MB`, "memory");

/** The failure for a host stop: whatever QuickJS reported with it (often nothing) says less. */
export function stopFailure(stop: Stop, limits: StopLimits): Error {
  if (stop === "abort") return new RunAborted();
  if (stop === "timeout")
    return new SandboxError(`The function ran longer than its time limit of ${seconds(limits.timeoutMs)} and was stopped`, "timeout");
  if (stop === "slice") {
    return new SandboxError(
      `The function computed for more than ${seconds(limits.sliceMs)} without waiting for a timer or a request ` +
        `(TOOL_SLICE_MS), which would keep the server from answering anyone else, and was stopped`,
      "timeout",
    );
  }
  return new SandboxError(
    `The function computed for longer than its time limit of ${seconds(limits.timeoutMs)} allows (its instruction budget) and was stopped`,
    "timeout",
  );
}

/** A SandboxError for what QuickJS threw (a dumped value), or for the host's stop when there was one. */
export function failureOf(dumped: unknown, stop: Stop | undefined, limits: StopLimits): Error {
  if (stop) return stopFailure(stop, limits);
  const message =
    dumped && typeof dumped === "object" && (dumped as { __sandboxFailure?: unknown }).__sandboxFailure
      ? String((dumped as { message: unknown }).message)
      : errorText(dumped);
  // QuickJS that runs out of memory while making its own error throws null (the prelude says "null").
  if ((dumped === null || dumped === undefined || message === "null") && engineMemoryFull()) return memoryFailure();
  if (/out of memory/i.test(message)) return memoryFailure();
  if (/stack overflow|call stack size/i.test(message))
    return new SandboxError(`The function exceeded its stack limit (recursion too deep): ${message}`, "stack");
  return new SandboxError(message, "thrown");
}

/** A syntax error's message with its line in the function body. */
export function syntaxMessage(dumped: unknown, filename: string): string {
  const stack = dumped && typeof dumped === "object" ? String((dumped as { stack?: unknown }).stack ?? "") : "";
  const line = new RegExp(`${filename.replace(".", "\\.")}:(\\d+)`).exec(stack)?.[1];
  return `${errorText(dumped)}${line ? ` (line ${line})` : ""}`;
}
