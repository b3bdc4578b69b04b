// Untrusted JavaScript (a custom tool's `func`) run in QuickJS, isolated from the worker: a fresh
// runtime and context per call, disposed after it; time limits (the whole call, and each stretch
// of computing between host awaits), a memory limit and a stack limit; no access to the worker's
// globals.
//
// The function body runs as the body of an async function, so it may `await` and `return`. It sees
// its arguments as `$<name>` variables, `$vars` (the flow's variables) and `$flow` (chatflowId,
// chatId, sessionId, input), `console` (ignored), `setTimeout`, and `fetch` — the host's fetch under
// the outbound URL policy (src/lib/outbound/), also available as `require("node-fetch")`, which
// Flowise's custom tool examples use. The result is a string: strings as they are, other values
// JSON-stringified, undefined as "".
//
// Files: prelude.ts (the globals inside QuickJS), bridge.ts (host work the function awaits),
// run.ts (one call and its limits), syntax.ts (parse check), errors.ts, limits.ts, engine.ts.
export { SandboxError } from "./errors";
export { toolTimeoutMs } from "./limits";
export { type SandboxRun, runSandboxed } from "./run";
export { checkFunctionSyntax } from "./syntax";
