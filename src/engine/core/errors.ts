// How a run fails: an abort stays an abort (RunAborted, name "AbortError"); a model or provider
// failure is a 502/504 ApiError; anything else keeps its ApiError status.
import { ApiError, fail } from "../../errors";
import { RunAborted } from "../../lib/run-control";
import type { RunContext } from "./ports";
import { errorMessage } from "../../lib/error-message";

export function checkAborted(ctx: Pick<RunContext, "signal">): void {
  if (ctx.signal?.aborted) throw new RunAborted();
}

/** Whatever a model call threw, as the error the run reports. */
export function modelFailure(err: unknown, ctx: Pick<RunContext, "signal">): Error {
  if (ctx.signal?.aborted) return new RunAborted();
  if (err instanceof ApiError || err instanceof RunAborted) return err;
  if (err instanceof Error && err.name === "AbortError") return new RunAborted();
  return fail("MODEL_FAILED", `Model call failed: ${errorMessage(err)}`);
}
