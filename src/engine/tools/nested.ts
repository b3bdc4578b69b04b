// Where a tool's inner LangChain calls report. LangChain hands a DynamicStructuredTool's func the
// tool's run manager but runs it in the caller's async-local run config, so a model, chain or
// retriever the func calls would report to the caller's handlers as the caller's child: a trace
// shows it beside the tool call, not inside it. `inToolRun` runs the func's work in a config whose
// callbacks are the tool run's children (what @langchain/core's own `tool()` does for its funcs), so
// every call inside nests under the tool without being handed callbacks. `outsideRun` is the other
// way: a flow called as a tool is a run of its own (Flowise calls it over HTTP: its own trace), so
// the caller's run-scoped handlers (its trace) see none of its calls; other handlers still do.
import type { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { CallbackManager, type CallbackManagerForToolRun } from "@langchain/core/callbacks/manager";
import { type RunnableConfig, patchConfig, pickRunnableConfigKeys } from "@langchain/core/runnables";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";

/** Marks a LangChain handler that belongs to one flow run (its trace): a flow it calls as a tool does not report to it. */
export const RUN_SCOPED = Symbol.for("edgeflow.run-scoped-handler");

/** Runs `work` with the tool's run as the parent of every LangChain call inside it (as is, when nothing listens). */
export function inToolRun<T>(
  runManager: CallbackManagerForToolRun | undefined,
  config: RunnableConfig | undefined,
  work: () => Promise<T>,
) {
  if (!runManager) return work();
  const child = patchConfig(config ?? {}, { callbacks: runManager.getChild() });
  return AsyncLocalStorageProviderSingleton.runWithConfig(pickRunnableConfigKeys(child) ?? {}, work) as Promise<T>;
}

/** A tool func whose work runs under the tool's run (see inToolRun). */
export const nested =
  <A, R>(work: (arg: A) => Promise<R>) =>
  (arg: A, runManager?: CallbackManagerForToolRun, config?: RunnableConfig): Promise<R> =>
    inToolRun(runManager, config, () => work(arg));

/** Runs `work` as a run of its own: no parent run, the current handlers minus the run-scoped ones. */
export function outsideRun<T>(work: () => Promise<T>): Promise<T> {
  const callbacks = (AsyncLocalStorageProviderSingleton.getRunnableConfig() as RunnableConfig | undefined)?.callbacks;
  const handlers: unknown[] = Array.isArray(callbacks)
    ? callbacks
    : callbacks instanceof CallbackManager
      ? callbacks.inheritableHandlers
      : [];
  const kept = handlers.filter((h) => !(h && typeof h === "object" && RUN_SCOPED in h)) as BaseCallbackHandler[];
  // None kept: no callbacks at all, so the callee's models keep their direct path (providers/chat/base.ts).
  return AsyncLocalStorageProviderSingleton.runWithConfig({ callbacks: kept.length ? kept : undefined }, work) as Promise<T>;
}
