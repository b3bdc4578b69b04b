// The engine's door for MULTIAGENT (no HTTP): a V1 template as saved — Branch Out Merge In's
// chatAnthropic from the shared chat model registry, on the Anthropic stand-in — runs through
// prepareFlow; a graph that cannot run is a 400 before anything runs.
import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { prepareFlow } from "../../src/engine";
import { credential, makeCtx, marker, recordingSink, runtimeWith } from "../engine/helpers";
import branchOut from "./fixtures/branch-out-merge-in.json";

const anthropicUrl = () => inject("anthropicUrl");

describe("MULTIAGENT through the engine's door", () => {
  it("Branch Out Merge In with its own chatAnthropic answers; the stream gets the V1 answer token", async () => {
    const t = structuredClone(branchOut) as { nodes: Array<{ data: Record<string, unknown> & { name: string } }>; edges: unknown[] };
    const model = t.nodes.find((n) => n.data.name === "chatAnthropic")!;
    model.data.credential = await credential("anthropicApi", { anthropicApiKey: "sk-ant-test" });
    const runtime = runtimeWith({ ANTHROPIC_BASE_URL: anthropicUrl() });
    const question = `trip ${marker()}`;
    const { sink, text } = recordingSink();
    const result = await prepareFlow("MULTIAGENT", JSON.stringify(t)).run(makeCtx(question, { runtime }), sink);
    expect(result.text).toBe(text());
    expect(result.text).toContain(question);
    const sent = await (await fetch(`${anthropicUrl()}/requests?contains=${encodeURIComponent(question)}`)).json<any[]>();
    expect(sent).toHaveLength(4); // AgentA, AgentB, AgentC, AgentD
    expect(sent[0].headers["x-api-key"]).toBe("sk-ant-test");
  });

  it("a graph that cannot run is a 400 naming the node", () => {
    const t = structuredClone(branchOut) as { nodes: Array<{ id: string; data: { name: string } }>; edges: Array<{ source: string; target: string }> };
    const graph = { nodes: t.nodes, edges: t.edges.filter((e) => e.source !== "seqAgent_0") };
    expect(() => prepareFlow("MULTIAGENT", JSON.stringify(graph))).toThrow(/AgentB \(seqAgent_1\), AgentC \(seqAgent_2\) have none/);
  });
});
