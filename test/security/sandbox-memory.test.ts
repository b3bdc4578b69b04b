// Issue 18 point 1: every hostile sandbox case — busy loop, loop in a timer, microtask chain, and
// memory bombs of arrays, strings and objects — ends with an error naming the limit that stopped
// it, and /ping keeps answering within a second meanwhile. The memory bombs used to hold the isolate
// for up to 5 s: QuickJS's per-runtime limit counts allocations, not their sizes, in the WebAssembly
// build (emscripten has no malloc_usable_size), so arrays of a million elements grew the engine's
// memory towards 2 GB before anything stopped them.
import { describe, expect, it } from "vitest";
import { SandboxError, runSandboxed } from "../../src/sandbox";
import { callOf, customToolNode, toolAgentFlow } from "../engine/agents-flows";
import { json } from "../helpers";
import { slowest, whilePinging } from "./pinging";

const SLICE = /^Error: The function computed for more than 500 ms without waiting for a timer or a request \(TOOL_SLICE_MS\)/;
const MEMORY = /^Error: The function used more than (its memory limit of 32 MB|the sandbox's memory limit of 64 MB)/;
// Small objects fill the per-runtime limit slowly enough that the slice may stop them first.
const EITHER = new RegExp(`${SLICE.source}|${MEMORY.source}`);

async function agentWithTool(name: string, func: string): Promise<string> {
  const credential = (
    await json("POST", "/credentials", { body: { name: "openai", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-test" } } })
  ).id;
  const tool = await json("POST", "/tools", { body: { name, description: `the ${name} tool`, func } });
  const flowData = toolAgentFlow({ credential, nodes: [customToolNode("customTool_0", tool.id)] });
  return (await json("POST", "/chatflows", { body: { name: "agent", flowData } })).id;
}

const cases: [string, string, RegExp][] = [
  ["busy loop", "while (true) {}", SLICE],
  ["loop in a timer", "await new Promise((r) => setTimeout(() => { while (true) {} }, 0)); return 'never'", SLICE],
  ["microtask chain", "const f = () => Promise.resolve().then(f); return await f()", EITHER],
  ["memory bomb of arrays", "const a = []; while (true) a.push(new Array(1e6).fill(1))", MEMORY],
  ["memory bomb of smaller arrays", "const a = []; while (true) a.push(new Array(1e5).fill(1))", MEMORY],
  // 10 MB a string: one QuickJS operation cannot be interrupted, so a single 30 MB repeat alone holds
  // the isolate 0.5–1.2 s on a loaded machine (docs/security.md, "Not covered"); the bomb is the loop.
  ["memory bomb of strings", "const a = []; while (true) a.push('y'.repeat(1e7) + a.length)", MEMORY],
  ["memory bomb of objects", "const a = []; while (true) a.push({ a: 1, b: [1, 2, 3], c: 'x' + a.length })", EITHER],
  ["memory bomb of typed arrays", "const a = []; while (true) a.push(new Uint8Array(1e7))", MEMORY],
];

describe("hostile sandbox code: a clear error naming the limit, and the server keeps answering", () => {
  for (const [name, func, expected] of cases) {
    it(`${name}: the tool answers the limit; /ping answers within a second`, async () => {
      const id = await agentWithTool(name.replace(/\W+/g, "_"), func);
      const { result: answer, pings } = await whilePinging(() =>
        json("POST", `/prediction/${id}`, { body: { question: callOf(name.replace(/\W+/g, "_"), {}) } }),
      );
      expect(answer.usedTools[0].toolOutput).toMatch(expected);
      expect(pings.length).toBeGreaterThan(0);
      expect(slowest(pings)).toBeLessThan(1000);
    }, 30_000);
  }

  it("after a memory bomb the sandbox runs the next function normally", async () => {
    const err = await runSandboxed("const a = []; while (true) a.push(new Array(1e6).fill(1))", { env: {} }).catch((e) => e);
    expect(err).toBeInstanceOf(SandboxError);
    expect(err.reason).toBe("memory");
    expect(await runSandboxed("return [1, 2, 3].map((x) => x * 2).join(',')", { env: {} })).toBe("2,4,6");
    // A legitimate large value still fits: 4 MB of text.
    expect((await runSandboxed("return 'z'.repeat(4e6)", { env: {} })).length).toBe(4e6);
  }, 30_000);
});
