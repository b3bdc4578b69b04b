// customFunction (Flowise's "Custom JS Function", Utilities): `javascriptFunction` runs in the QuickJS
// sandbox (the custom tools' time, memory and fetch limits; fetch under the outbound URL policy)
// with `$input` (the question), `$<name>` per functionInputVariables entry (which may hold other
// nodes' outputs), `$vars` and `$flow` {chatflowId, sessionId, chatId, input}. Output `output`:
// its value becomes the node's instance for other nodes; output `EndingNode`: it answers the
// prediction (run then, with the question, not at build time).
import { ApiError, fail } from "../../../errors";
import { RunAborted } from "../../../lib/run-control";
import { runForValue, valueText } from "../../core/function-code";
import type { RunContext } from "../../core/ports";
import type { FlowNode } from "../../core/types";
import { flowOf } from "../../tools/custom";
import type { NodeDefinition } from "../types";
import { errorMessage } from "../../../lib/error-message";

interface PendingFunction {
  kind: "customFunction";
  node: FlowNode;
  inputs: Record<string, unknown>;
}

const isPending = (v: unknown): v is PendingFunction => !!v && typeof v === "object" && (v as PendingFunction).kind === "customFunction";
const owner = (node: FlowNode) => `${node.data.label} (${node.id})`;

/** functionInputVariables (a JSON object, or one the resolver already parsed) → `$name` values. */
export function variablesOf(raw: unknown, node: FlowNode, what = "Custom Function"): Record<string, unknown> {
  let vars: unknown = raw;
  if (typeof raw === "string") {
    if (!raw.trim()) return {};
    try {
      vars = JSON.parse(raw);
    } catch (err) {
      throw fail("INVALID_FLOW", `${owner(node)}: Invalid JSON in the ${what} Input Variables: ${errorMessage(err)}`);
    }
  }
  if (vars === undefined || vars === null) return {};
  if (typeof vars !== "object" || Array.isArray(vars))
    throw fail("INVALID_FLOW", `${owner(node)}: its Input Variables must be a JSON object of name → value`);
  // As Flowise does: a value that is a JSON object in text (another node's output) arrives parsed.
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(vars)) {
    let v = value;
    if (typeof v === "string" && v.trim().startsWith("{") && v.trim().endsWith("}")) {
      try {
        v = JSON.parse(v);
      } catch {
        // text that only looks like an object
      }
    }
    out[name] = v;
  }
  return out;
}

/**
 * Runs a node's `code` in the sandbox with `$input` (the question), the `$<name>` variables, `$vars`
 * and `$flow`; the function's own failure is a SANDBOX_FAILED naming the node.
 */
export async function runNodeCode(node: FlowNode, code: string, variables: Record<string, unknown>, ctx: RunContext): Promise<unknown> {
  try {
    return await runForValue(code, ctx.runtime, {
      args: { input: ctx.question, ...variables },
      vars: ctx.vars,
      flow: flowOf(ctx),
      signal: ctx.signal,
    });
  } catch (err) {
    if (err instanceof RunAborted || err instanceof ApiError || ctx.signal?.aborted) throw err;
    // The same status and wording as the agentflow Custom Function: the function's own failure.
    throw fail("SANDBOX_FAILED", `${owner(node)}: ${errorMessage(err)}`);
  }
}

async function evaluate(node: FlowNode, inputs: Record<string, unknown>, ctx: RunContext): Promise<unknown> {
  const code = typeof inputs.javascriptFunction === "string" ? inputs.javascriptFunction : "";
  if (!code.trim()) throw fail("INVALID_FLOW", `${owner(node)} has no JavaScript function (javascriptFunction)`);
  return runNodeCode(node, code, variablesOf(inputs.functionInputVariables, node), ctx);
}

export const customFunctionNodes: NodeDefinition[] = [
  {
    name: "customFunction",
    category: "Utilities",
    async build({ node, inputs, ctx, ending }) {
      if (ending) return { kind: "customFunction", node, inputs } satisfies PendingFunction;
      return evaluate(node, inputs, ctx);
    },
    async run(instance, { ctx, sink }) {
      if (!isPending(instance)) throw fail("INVALID_FLOW", "Custom JS Function was not built");
      const value = await evaluate(instance.node, instance.inputs, ctx);
      const text = valueText(value);
      // Streaming: the whole answer as one token, as Flowise streams a non-LLM ending node.
      if (sink && text) sink.token(text);
      return typeof value === "object" && value !== null ? { text, json: value } : { text };
    },
    canStream: () => true,
  },
];
