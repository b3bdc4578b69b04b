// The engine keeps prepared flows per isolate (src/engine/core/prepared-cache.ts). What a user
// checks: a saved change is what the next prediction runs, and a flow that cannot run keeps saying
// why; the cache itself stays within its bounds.
import { describe, expect, it } from "vitest";
import { PreparedFlowCache } from "../../src/engine/core/prepared-cache";
import type { PreparedFlow } from "../../src/engine";
import { json } from "../helpers";
import { openAICredential, saveChain, standinRequests } from "../security/helpers";

const flowOf = (name: string): PreparedFlow => ({
  kind: "chatflow",
  graph: { nodes: [], edges: [] },
  streamable: false,
  run: async () => ({ text: name, memoryType: null }),
});

describe("prepared flows per isolate", () => {
  it("a chatflow's saved change is what the next prediction runs", async () => {
    const before = crypto.randomUUID();
    const after = crypto.randomUUID();
    const credential = await openAICredential("sk-test");
    const id = await saveChain({ template: `${before} {product}`, credential });
    await json("POST", `/prediction/${id}`, { body: { question: "first" } });
    expect(await standinRequests(before)).toHaveLength(1);

    const { flowData } = await json("GET", `/chatflows/${id}`);
    await json("PUT", `/chatflows/${id}`, { body: { flowData: flowData.replace(before, after) } });
    await json("POST", `/prediction/${id}`, { body: { question: "second" } });
    expect(await standinRequests(before)).toHaveLength(1);
    expect(await standinRequests(after)).toHaveLength(1);
  });

  it("serves the same (type, flowData) once prepared; a refusal is prepared again each time", () => {
    const cache = new PreparedFlowCache<PreparedFlow>(4, 1000);
    let prepared = 0;
    const a = cache.get("CHATFLOW", "a", () => (prepared++, flowOf("a")));
    expect(cache.get("CHATFLOW", "a", () => (prepared++, flowOf("a again")))).toBe(a);
    expect(cache.get("AGENTFLOW", "a", () => (prepared++, flowOf("a as agentflow")))).not.toBe(a);
    expect(prepared).toBe(2);

    let refused = 0;
    const refuse = () => {
      refused++;
      throw new Error("cannot run");
    };
    expect(() => cache.get("CHATFLOW", "bad", refuse)).toThrow("cannot run");
    expect(() => cache.get("CHATFLOW", "bad", refuse)).toThrow("cannot run");
    expect(refused).toBe(2);
  });

  it("drops the least recently used flow beyond its count or size", () => {
    const cache = new PreparedFlowCache<PreparedFlow>(2, 60);
    const a = cache.get("T", "a", () => flowOf("a"));
    cache.get("T", "b", () => flowOf("b"));
    cache.get("T", "a", () => flowOf("a2")); // a is now the most recent
    cache.get("T", "c", () => flowOf("c")); // over 2 entries: b goes
    expect(cache.get("T", "a", () => flowOf("a3"))).toBe(a);
    let rebuilt = false;
    cache.get("T", "b", () => ((rebuilt = true), flowOf("b2")));
    expect(rebuilt).toBe(true);

    const big = "x".repeat(100); // larger than the whole budget: prepared, never kept
    let builds = 0;
    cache.get("T", big, () => (builds++, flowOf("big")));
    cache.get("T", big, () => (builds++, flowOf("big")));
    expect(builds).toBe(2);
  });
});
