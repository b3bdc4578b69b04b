// The engine's door for MULTIAGENT (no HTTP): a V1 template as saved — Branch Out Merge In's
// chatAnthropic from the shared chat model registry, on the Anthropic stand-in — prepared by
// prepareFlow (translated once) and run through the runtime's entry with recorded ports; a graph
// that cannot run is a 400 before anything runs.
import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { prepareFlow } from "../../src/engine";
import { credential, marker, runtimeWith } from "../engine/helpers";
import { recorder, request } from "../agentflow/helpers";
import branchOut from "./fixtures/branch-out-merge-in.json";

const anthropicUrl = () => inject("anthropicUrl");

describe("MULTIAGENT through the engine's door", () => {
  it("Branch Out Merge In with its own chatAnthropic answers; the stream gets the V1 answer token", async () => {
    const t = structuredClone(branchOut) as { nodes: Array<{ data: Record<string, unknown> & { name: string } }>; edges: unknown[] };
    const model = t.nodes.find((n) => n.data.name === "chatAnthropic")!;
    model.data.credential = await credential("anthropicApi", { anthropicApiKey: "sk-ant-test" });
    const runtime = runtimeWith({ ANTHROPIC_BASE_URL: anthropicUrl() });
    const question = `trip ${marker()}`;
    const prepared = prepareFlow("MULTIAGENT", JSON.stringify(t));
    expect(prepared.kind).toBe("agentflow");
    if (prepared.kind !== "agentflow") return;
    const rec = recorder({ ctx: { runtime, question } });
    const outcome = await prepared.run(request({ question, streaming: true }), rec.ports);
    expect(outcome.state).toBe("FINISHED");
    expect(outcome.text).toContain(question);
    // Flowise V1 streams the final answer as one token after the steps.
    expect(rec.tokens()).toBe(outcome.text);
    expect(outcome.agentReasoning?.map((r) => r.agentName)).toEqual(expect.arrayContaining(["AgentA", "AgentD"]));
    const sent = await (await fetch(`${anthropicUrl()}/requests?contains=${encodeURIComponent(question)}`)).json<any[]>();
    expect(sent).toHaveLength(4); // AgentA, AgentB, AgentC, AgentD
    expect(sent[0].headers["x-api-key"]).toBe("sk-ant-test");
  });

  it("a graph that cannot run is a 400 naming the node", () => {
    const t = structuredClone(branchOut) as {
      nodes: Array<{ id: string; data: { name: string } }>;
      edges: Array<{ source: string; target: string }>;
    };
    const graph = { nodes: t.nodes, edges: t.edges.filter((e) => e.source !== "seqAgent_0") };
    expect(() => prepareFlow("MULTIAGENT", JSON.stringify(graph))).toThrow(/AgentB \(seqAgent_1\), AgentC \(seqAgent_2\) have none/);
  });
});
