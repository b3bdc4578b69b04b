// Whether a function body parses: compiled in a fresh QuickJS runtime without running it.
import { discardQuickjs, quickjs } from "./engine";
import { syntaxMessage } from "./errors";
import { INTERRUPTS_PER_SECOND, MEMORY_LIMIT_BYTES, STACK_LIMIT_BYTES } from "./limits";
import { FILENAME, wrap } from "./prelude";

/**
 * Checks that a function body parses (compiles it without running it). Answers the syntax error
 * with its line, or undefined when it parses.
 */
export async function checkFunctionSyntax(body: string): Promise<string | undefined> {
  const engine = await quickjs();
  const runtime = engine.newRuntime();
  runtime.setMemoryLimit(MEMORY_LIMIT_BYTES);
  runtime.setMaxStackSize(STACK_LIMIT_BYTES);
  let interrupts = 0;
  runtime.setInterruptHandler(() => ++interrupts > INTERRUPTS_PER_SECOND);
  const vm = runtime.newContext();
  let healthy = true;
  try {
    const result = vm.evalCode(wrap(body), FILENAME, { compileOnly: true });
    if (result.error)
      return syntaxMessage(
        result.error.consume((e) => vm.dump(e)),
        FILENAME,
      );
    result.value.dispose();
    return undefined;
  } catch (err) {
    healthy = false; // QuickJS was cut short by the host: see runSandboxed
    if (err instanceof RangeError) return "the function is nested too deeply to compile";
    throw err;
  } finally {
    if (healthy) {
      try {
        vm.dispose();
        runtime.dispose();
      } catch {
        healthy = false;
      }
    }
    if (!healthy) discardQuickjs();
  }
}
