// Stands in for `langsmith` (and its `run_trees` and `singletons/traceable` entry points) in the worker
// bundle (wrangler.toml [alias]). @langchain/core imports it for its LangSmith tracer and to carry a
// runnable's config through AsyncLocalStorage in a RunTree; edgeflow never uses that tracer (it writes
// LangSmith's payloads itself: src/services/tracing/) and Workers give no process.env to turn it on, so
// the real client (~230 KB before gzip) would only be bundled, and its RunTree built on every lambda
// runnable (a shared client, a UUIDv7, a dotted order). What core still reads is here: a RunTree that
// holds the fields it is given, the dotted order its own tracers compute, and "no current run tree".

type Fields = Record<string, unknown>;

export class RunTree {
  [key: string]: unknown;
  constructor(config: Fields = {}) {
    Object.assign(this, { ...config });
  }
  createChild(config: Fields): RunTree {
    return new RunTree({ ...config, parent_run: this });
  }
  async end(): Promise<void> {}
  async postRun(): Promise<void> {}
  async patchRun(): Promise<void> {}
  toJSON(): Fields {
    return { ...this };
  }
}

export function isRunTree(x: unknown): x is RunTree {
  const t = x as { createChild?: unknown; postRun?: unknown } | null | undefined;
  return t != null && typeof t.createChild === "function" && typeof t.postRun === "function";
}

/** LangSmith's dotted order (its format, so a BaseTracer's run ids sort as LangSmith's do). */
export function convertToDottedOrderFormat(epoch: number, runId: string, executionOrder = 1) {
  const micro = executionOrder.toFixed(0).slice(0, 3).padStart(3, "0");
  const microsecondPrecisionDatestring = `${new Date(epoch).toISOString().slice(0, -1)}${micro}Z`;
  return { dottedOrder: microsecondPrecisionDatestring.replace(/[-:.]/g, "") + runId, microsecondPrecisionDatestring };
}

export function getCurrentRunTree(permitAbsent = false): RunTree | undefined {
  if (permitAbsent) return undefined;
  throw new Error("No LangSmith run tree: edgeflow does not bundle LangSmith's traceable()");
}

export function isTraceableFunction(x: unknown): boolean {
  return typeof x === "function" && "langsmith:traceable" in x;
}

export class Client {
  constructor() {
    throw new Error("The LangSmith client is not bundled: edgeflow sends LangSmith traces itself (src/services/tracing/)");
  }
}
