// A function body run in the QuickJS sandbox for its value, not only its text: the body runs as an
// inner async function and its result comes back wrapped, so an array stays an array and a string
// that happens to look like JSON stays a string. Shared by the chatflow Custom JS Function and the
// agentflow Custom Function nodes. The prefix stays on the body's first line: line numbers hold.
import { isObject } from "./inputs";
import type { Runtime } from "./ports";
import type { SandboxRun } from "../../sandbox";

const wrapBody = (code: string) =>
  `const __value = await (async function () {${code}\n})(); return __value === undefined ? {} : { __value };`;

/** The body's return value (JSON-shaped: what survives JSON), undefined when it returns nothing. */
export async function runForValue(code: string, runtime: Pick<Runtime, "code">, run: Omit<SandboxRun, "env">): Promise<unknown> {
  const raw = await runtime.code.run(wrapBody(code), run);
  try {
    const parsed = JSON.parse(raw);
    if (isObject(parsed) && Object.keys(parsed).length <= 1) return parsed.__value;
  } catch {
    // not the wrapper's answer (cannot happen unless the sandbox changes); keep the text
  }
  return raw;
}

/** A value as answer text: strings as they are, objects and arrays as pretty JSON, nothing as "". */
export function valueText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  if (typeof value === "object" && value !== null) return JSON.stringify(value, null, 2);
  return JSON.stringify(value);
}
