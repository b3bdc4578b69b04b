// POST /node-custom-function: the canvas's "Execute" button on a JavaScript input (Flowise's
// ExpandTextDialog) runs the code as the Custom JS Function node would — in the QuickJS sandbox,
// with its time, memory, stack and fetch limits (src/sandbox/), fetch under the outbound policy —
// and answers its value. Flowise hands the body's other fields to the function as `$<name>`
// (through functionInputVariables): here every other field, and the entries of
// `functionInputVariables` (an object, or JSON text of one), become `$<name>` variables; a `$name`
// the code reads and nobody gave is undefined. `$vars` holds the stored variables only for a
// caller who may see them (Flowise's canViewVariables).
import type { Deps } from "../deps";
import { ApiError, badRequest, fail } from "../../errors";
import type { Runtime } from "../../engine";
import { runForValue } from "../../engine/core/function-code";
import { errorMessage } from "../../lib/error-message";
import { RunAborted } from "../../lib/run-control";
import { runSandboxed } from "../../sandbox";
import { loadVariables } from "../runs";

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The names the function could read as `$name` (Flowise declares every `$name` the code mentions). */
const mentioned = (code: string) => [...new Set([...code.matchAll(/\$([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]))];

function variablesOf(raw: unknown): Record<string, unknown> {
  let value = raw;
  if (typeof raw === "string") {
    if (!raw.trim()) return {};
    try {
      value = JSON.parse(raw);
    } catch {
      throw badRequest("functionInputVariables must be a JSON object of name → value");
    }
  }
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw badRequest("functionInputVariables must be a JSON object of name → value");
  return value as Record<string, unknown>;
}

/** The function's arguments: the body's other fields, then functionInputVariables' entries. */
export function argumentsOf(body: Record<string, unknown>): Record<string, unknown> {
  const { javascriptFunction: _code, functionInputVariables, ...rest } = body;
  const args = { ...rest, ...variablesOf(functionInputVariables) };
  for (const name of Object.keys(args))
    if (!IDENTIFIER.test(name))
      throw badRequest(`Input variable ${name.slice(0, 100)} is not a JavaScript name: it cannot be read as $${name}`);
  return args;
}

export async function executeCustomFunction(
  deps: Deps<"db" | "env">,
  body: Record<string, unknown>,
  options: { withVariables: boolean; signal?: AbortSignal },
): Promise<unknown> {
  const code = body.javascriptFunction;
  if (typeof code !== "string" || !code.trim()) throw badRequest("javascriptFunction is required: the function body to run");
  const args = argumentsOf(body);
  const vars = options.withVariables ? await loadVariables(deps) : {};
  const sandbox: Pick<Runtime, "code"> = { code: { run: (func, run) => runSandboxed(func, { ...run, env: deps.env }) } };
  try {
    return await runForValue(code, sandbox, {
      args,
      declared: mentioned(code).filter((n) => n !== "vars" && n !== "flow"),
      vars,
      flow: {},
      signal: options.signal,
    });
  } catch (err) {
    if (err instanceof RunAborted || err instanceof ApiError) throw err;
    throw fail("SANDBOX_FAILED", `Custom function: ${errorMessage(err)}`);
  }
}
