// Issue 8, point 7: a custom tool whose promise chain never settles (each job queueing the next)
// was reported as something other than what stopped it. The interrupt that cuts it is a time
// limit — the slice (it computes without ever returning to the host) comes before the 1 s call
// limit — and the tool's error says so; a promise that truly can never settle still says that.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSandboxed } from "../../src/sandbox";
import { callOf, customToolNode, toolAgentFlow } from "../engine/agents-flows";
import { json } from "../helpers";
import { openAICredential, setVars } from "./helpers";

// A chain of microtasks never returns to the host: the slice limit (TOOL_SLICE_MS) stops it first.
// A chain that allocates as it goes may reach a memory limit first (the engine's 64 MB, or the run's
// 32 MB, when QuickJS can no longer queue its next job): that limit is named too.
const TIME_LIMIT =
  /^The function computed for more than 500 ms without waiting for a timer or a request \(TOOL_SLICE_MS\)|^The function used more than (the sandbox's|its) memory limit of (64|32) MB$/;

let restore: () => void;
beforeAll(() => {
  restore = setVars({ TOOL_TIMEOUT_MS: "1000" });
});
afterAll(() => restore());

describe("a promise chain that never settles is a time limit", () => {
  it("in the sandbox: endless .then chains and async loops report the time limit", async () => {
    for (const body of [
      "const loop = () => Promise.resolve().then(loop); return await loop()",
      "const f = () => Promise.resolve().then(() => null).then(f); return await f()",
      "async function* g() { for (;;) yield 1 } for await (const x of g()) {}",
      "const f = async () => { for (;;) await null }; return await f()",
      // Each job keeps memory: QuickJS runs out of room to queue the next one, and the chain dies with
      // nothing left to run — the memory limit, not "can never settle".
      "const kept = []; const loop = () => Promise.resolve().then(() => { kept.push(new Array(2e4).fill(1)); return loop() }); return await loop()",
    ]) {
      const err = await runSandboxed(body, { env: { TOOL_TIMEOUT_MS: "1000" } }).catch((e) => e);
      expect(err.message, body).toMatch(TIME_LIMIT);
    }
    const stalled = await runSandboxed("return await new Promise(() => {})", { env: {} }).catch((e) => e);
    expect(stalled.message).toBe("The function awaits something that can never happen (its promise can no longer settle)");
  }, 30_000);

  it("through a prediction: the tool answers the model with the time limit, and the run goes on", async () => {
    const tool = await json("POST", "/tools", {
      body: { name: "spin", description: "never settles", func: "const loop = () => Promise.resolve().then(loop); return await loop()" },
    });
    const flowData = toolAgentFlow({ credential: await openAICredential("sk-test"), nodes: [customToolNode("customTool_0", tool.id)] });
    const { id } = await json("POST", "/chatflows", { body: { name: "agent", flowData } });
    const answer = await json("POST", `/prediction/${id}`, { body: { question: callOf("spin", {}) } });
    expect(answer.usedTools[0].toolOutput).toMatch(new RegExp(`^Error: (${TIME_LIMIT.source.replace(/\^/g, "")})`));
    expect(answer.text).toMatch(/^tools said: Error: The function/);
  }, 30_000);
});
