// The executor: Start → LLM as Flowise streams it (frames byte for byte), executed data and a
// checkpoint after every node, the final text, joins, concurrent branches, branch selection,
// runaway loops and deadlocked joins, errors and aborts.
import { describe, expect, it } from "vitest";
import { runAgentflow } from "../../src/engine/agentflow";
import { frame } from "../../src/stream/sse";
import { directReply, edge, graph, llm, marker, node, outputOf, recorder, rejection, request, requestsWith, run, start } from "./helpers";

describe("Start → LLM", () => {
  it("answers the model's text; executed data and checkpoints as Flowise stores them", async () => {
    const m = marker();
    const g = graph([start(), llm("llmAgentflow_0", {}, "LLM 0")], [edge("startAgentflow_0", "llmAgentflow_0")]);
    const out = await run(g, { question: `Hi ${m}` });
    expect(out.state).toBe("FINISHED");
    expect(out.text).toBe(`echo: Hi ${m}`);
    expect(out.executedData.map((e) => [e.nodeId, e.status, e.previousNodeIds])).toEqual([
      ["startAgentflow_0", "FINISHED", []],
      ["llmAgentflow_0", "FINISHED", ["startAgentflow_0"]],
    ]);
    expect(out.executedData[0].data).toEqual({
      id: "startAgentflow_0",
      name: "startAgentflow",
      input: { question: `Hi ${m}` },
      output: { question: `Hi ${m}` },
      state: {},
    });
    const llmData = out.executedData[1].data;
    expect(llmData.input?.messages).toEqual([{ role: "user", content: `Hi ${m}` }]);
    expect(llmData.output).toMatchObject({
      content: `echo: Hi ${m}`,
      calledTools: [],
      usageMetadata: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
    });
    expect(llmData.chatHistory).toEqual([
      { role: "user", content: `Hi ${m}` },
      { role: "user", content: `echo: Hi ${m}`, name: "llm_0" },
    ]);
    // One checkpoint per node, then the final state.
    expect(out.rec.checkpoints.map((c) => [c.state, c.data.length])).toEqual([
      ["INPROGRESS", 1],
      ["INPROGRESS", 2],
      ["FINISHED", 2],
    ]);
    expect(out.rec.frames).toEqual([]); // not streaming: no frames
  });

  it("streams Flowise's frames byte for byte, tokens as the model makes them", async () => {
    const m = marker();
    const g = graph([start(), llm("llmAgentflow_0", {}, "LLM 0")], [edge("startAgentflow_0", "llmAgentflow_0")]);
    const out = await run(g, { question: `Hi ${m}`, streaming: true });
    const [startEntry, llmEntry] = out.executedData;
    const expected = [
      frame("agentFlowEvent", "INPROGRESS"),
      frame("nextAgentFlow", { nodeId: "startAgentflow_0", nodeLabel: "Start", status: "INPROGRESS" }),
      frame("nextAgentFlow", { nodeId: "startAgentflow_0", nodeLabel: "Start", status: "FINISHED" }),
      frame("agentFlowExecutedData", [startEntry]),
      frame("nextAgentFlow", { nodeId: "llmAgentflow_0", nodeLabel: "LLM 0", status: "INPROGRESS" }),
      ...`echo: Hi ${m}`.split(/(?<=\s)/).map((t) => frame("token", t)),
      frame("calledTools", []), // (no usageMetadata frame: the stand-in's stream reports no usage)
      frame("nextAgentFlow", { nodeId: "llmAgentflow_0", nodeLabel: "LLM 0", status: "FINISHED" }),
      frame("agentFlowExecutedData", [startEntry, llmEntry]),
      frame("agentFlowEvent", "FINISHED"),
    ];
    const text = out.rec.text();
    expect(text).toBe(expected.join(""));
    expect(text.startsWith('message:\ndata:{"event":"agentFlowEvent","data":"INPROGRESS"}\n\n')).toBe(true);
    expect(out.rec.frames.filter((f) => f.event === "token").length).toBeGreaterThan(1);
  });

  it("a model that fails: ERROR entry, checkpoint and frames, no throw; prefixed message and 502", async () => {
    const m = marker();
    const g = graph([start(), llm("llmAgentflow_0", {}, "LLM 0")], [edge("startAgentflow_0", "llmAgentflow_0")]);
    const out = await run(g, { question: `[fail] ${m}`, streaming: true });
    expect(out.state).toBe("ERROR");
    expect(out.errorCode).toBe("MODEL_FAILED"); // 502
    expect(out.error).toMatch(/^Error in LLM node: OpenAI-compatible endpoint answered 500: stand-in failure/);
    expect(out.executedData.at(-1)).toEqual({
      nodeId: "llmAgentflow_0",
      nodeLabel: "LLM 0",
      previousNodeIds: ["startAgentflow_0"],
      status: "ERROR",
      data: { id: "llmAgentflow_0", name: "llmAgentflow", error: out.error },
    });
    expect(out.rec.checkpoints.at(-1)!.state).toBe("ERROR");
    expect(out.rec.frames.slice(-3).map((f) => f.event)).toEqual(["nextAgentFlow", "agentFlowExecutedData", "agentFlowEvent"]);
    expect(out.rec.frames.at(-3)!.data).toEqual({ nodeId: "llmAgentflow_0", nodeLabel: "LLM 0", status: "ERROR", error: out.error });
    expect(out.rec.frames.at(-1)!.data).toBe("ERROR");
  });

  it("an abort stops the run: TERMINATED, Flowise's message, no error in the node frame", async () => {
    const m = marker();
    const controller = new AbortController();
    const g = graph([start(), llm("llmAgentflow_0", {}, "LLM 0")], [edge("startAgentflow_0", "llmAgentflow_0")]);
    const rec = recorder({ ctx: { signal: controller.signal } });
    setTimeout(() => controller.abort(), 300);
    const out = await runAgentflow(g, request({ question: `[hang] ${m}`, streaming: true }), rec.ports);
    expect(out.state).toBe("TERMINATED");
    expect(out.error).toBe("Flow execution was cancelled");
    expect(out.executedData.at(-1)).toMatchObject({
      nodeId: "llmAgentflow_0",
      status: "TERMINATED",
      data: { error: "Flow execution was cancelled" },
    });
    expect(rec.frames.find((f) => f.event === "nextAgentFlow" && (f.data as { status: string }).status === "TERMINATED")!.data).toEqual({
      nodeId: "llmAgentflow_0",
      nodeLabel: "LLM 0",
      status: "TERMINATED",
    });
    expect(rec.checkpoints.at(-1)!.state).toBe("TERMINATED");
  });
});

describe("branches and joins", () => {
  it("runs independent branches concurrently and joins them; the join waits for both", async () => {
    const m = marker();
    // Two slow JSON answers (1 s each): sequential would take 2 s.
    const g = graph(
      [
        start(),
        llm("llmAgentflow_0", { llmUserMessage: `[slow] a ${m}` }),
        llm("llmAgentflow_1", { llmUserMessage: `[slow] b ${m}` }),
        directReply("directReplyAgentflow_0", "A={{ llmAgentflow_0 }} B={{ llmAgentflow_1 }}"),
      ],
      [
        edge("startAgentflow_0", "llmAgentflow_0"),
        edge("startAgentflow_0", "llmAgentflow_1"),
        edge("llmAgentflow_0", "directReplyAgentflow_0"),
        edge("llmAgentflow_1", "directReplyAgentflow_0"),
      ],
    );
    const t0 = Date.now();
    const out = await run(g, { question: `q ${m}` });
    const took = Date.now() - t0;
    expect(out.state).toBe("FINISHED");
    expect(took).toBeLessThan(1900);
    expect(out.executedData.map((e) => e.nodeId)).toEqual([
      "startAgentflow_0",
      "llmAgentflow_0",
      "llmAgentflow_1",
      "directReplyAgentflow_0",
    ]);
    expect(out.text).toBe(`A=echo: [slow] a ${m} B=echo: [slow] b ${m}`);
    expect(out.executedData[3].previousNodeIds).toEqual(["llmAgentflow_0", "llmAgentflow_1"]);
  });

  it("sibling branches do not see each other's chat history (each starts from the history before them)", async () => {
    const m = marker();
    const g = graph(
      [start(), llm("llmAgentflow_0", { llmUserMessage: `one ${m}` }), llm("llmAgentflow_1", { llmUserMessage: `two ${m}` })],
      [edge("startAgentflow_0", "llmAgentflow_0"), edge("startAgentflow_0", "llmAgentflow_1")],
    );
    const out = await run(g, { question: `q ${m}` });
    const seen = (id: string) =>
      (out.executedData.find((e) => e.nodeId === id)!.data.input!.messages as Array<{ content: string }>).map((x) => x.content);
    expect(seen("llmAgentflow_0")).toEqual([`q ${m}`, `one ${m}`]);
    expect(seen("llmAgentflow_1")).toEqual([`q ${m}`, `two ${m}`]);
  });

  it("state updates of concurrent branches are both kept", async () => {
    const g = graph(
      [
        start({
          startState: [
            { key: "a", value: "" },
            { key: "b", value: "" },
          ],
        }),
        node("customFunctionAgentflow_0", {
          customFunctionJavascriptFunction: "return 'x'",
          customFunctionUpdateState: [{ key: "a", value: "{{ output }}" }],
        }),
        node("customFunctionAgentflow_1", {
          customFunctionJavascriptFunction: "return 'y'",
          customFunctionUpdateState: [{ key: "b", value: "{{ output }}" }],
        }),
        directReply("directReplyAgentflow_0", "{{ $flow.state.a }}{{ $flow.state.b }}"),
      ],
      [
        edge("startAgentflow_0", "customFunctionAgentflow_0"),
        edge("startAgentflow_0", "customFunctionAgentflow_1"),
        edge("customFunctionAgentflow_0", "directReplyAgentflow_0"),
        edge("customFunctionAgentflow_1", "directReplyAgentflow_0"),
      ],
    );
    const out = await run(g, { question: "q" });
    expect(out.text).toBe("xy");
    expect(out.executedData.at(-1)!.data.state).toEqual({ a: "x", b: "y" });
  });

  it("a condition's two handles wired to one node: it runs when either is taken (Flowise would skip it)", async () => {
    const cond = node("conditionAgentflow_0", {
      conditions: [{ type: "string", value1: "{{ question }}", operation: "equal", value2: "yes" }],
    });
    const g = graph(
      [start(), cond, directReply("directReplyAgentflow_0", "reached")],
      [
        edge("startAgentflow_0", "conditionAgentflow_0"),
        edge("conditionAgentflow_0", "directReplyAgentflow_0", 0),
        edge("conditionAgentflow_0", "directReplyAgentflow_0", 1),
      ],
    );
    expect((await run(g, { question: "yes" })).text).toBe("reached");
    expect((await run(g, { question: "no" })).text).toBe("reached");
  });

  it("a join whose other input never runs is an error naming what it waits for", async () => {
    const cond = node("conditionAgentflow_0", {
      conditions: [{ type: "string", value1: "{{ question }}", operation: "equal", value2: "yes" }],
    });
    const g = graph(
      [
        start(),
        cond,
        directReply("directReplyAgentflow_0", "a"),
        directReply("directReplyAgentflow_1", "b"),
        directReply("directReplyAgentflow_2", "join"),
      ],
      [
        edge("startAgentflow_0", "conditionAgentflow_0"),
        edge("startAgentflow_0", "directReplyAgentflow_1"),
        edge("conditionAgentflow_0", "directReplyAgentflow_0", 0),
        edge("directReplyAgentflow_0", "directReplyAgentflow_2"),
        edge("directReplyAgentflow_1", "directReplyAgentflow_2"),
      ],
    );
    expect((await run(g, { question: "yes" })).text).toBe("join");
    const out = await run(g, { question: "no" });
    expect(out.state).toBe("ERROR");
    expect(out.errorCode).toBe("INVALID_FLOW"); // 400
    expect(out.error).toBe(
      "directReplyAgentflow_2 (directReplyAgentflow_2) never ran: it waits for directReplyAgentflow_0, which did not run",
    );
  });

  it("the last executed node gives the text; nodes without content give a space", async () => {
    const g = graph([start(), node("conditionAgentflow_0", { conditions: [] })], [edge("startAgentflow_0", "conditionAgentflow_0")]);
    const out = await run(g, { question: "q" });
    expect(out.text).toBe(" ");
    expect(outputOf(out.executedData, "conditionAgentflow_0")).toEqual({
      conditions: [{ type: "string", value1: "", operation: "equal", value2: "", isFulfilled: true }],
    });
  });
});

describe("the checkpoint port", () => {
  it("a checkpoint that fails (the execution row was lost) stops the run: the error comes out, no later node runs", async () => {
    const m = marker();
    const g = graph(
      [start(), directReply("directReplyAgentflow_0", "one"), llm("llmAgentflow_0")],
      [edge("startAgentflow_0", "directReplyAgentflow_0"), edge("directReplyAgentflow_0", "llmAgentflow_0")],
    );
    let n = 0;
    const rec = recorder({
      checkpoint: async () => {
        if (++n === 2) throw new Error("execution row is gone");
      },
    });
    const err = await rejection(runAgentflow(g, request({ question: m }), rec.ports));
    expect(err.message).toBe("execution row is gone");
    expect(rec.checkpoints.map((c) => c.data.at(-1)!.nodeId)).toEqual(["startAgentflow_0", "directReplyAgentflow_0"]);
    expect(await requestsWith(m)).toEqual([]);
  });
});

describe("post-processing", () => {
  it("the chatbot's function rewrites the final text with $flow.rawOutput; a failing one keeps the text", async () => {
    const g = graph([start(), directReply("directReplyAgentflow_0", "raw answer")], [edge("startAgentflow_0", "directReplyAgentflow_0")]);
    const out = await run(g, {
      question: "q",
      postProcessing: "return $flow.rawOutput.toUpperCase() + ' (' + $flow.chatHistory.length + ')'",
    });
    expect(out.text).toBe("RAW ANSWER (0)");
    expect(out.executedData.at(-1)!.data.output!.content).toBe("raw answer");
    expect((await run(g, { question: "q", postProcessing: "throw new Error('x')" })).text).toBe("raw answer");
  });
});

describe("graphs that cannot run (400 before any checkpoint)", () => {
  const cases: Array<[string, ReturnType<typeof graph>, RegExp]> = [
    ["no Start", graph([directReply("directReplyAgentflow_0", "x")], []), /needs a Start node/],
    [
      "an unknown node",
      graph([start(), node("fooAgentflow_0")], [edge("startAgentflow_0", "fooAgentflow_0")]),
      /Unknown agentflow nodes: fooAgentflow \(fooAgentflow_0\)/,
    ],
    [
      "a loose node",
      graph([start(), directReply("directReplyAgentflow_0", "x")], []),
      /Only the Start node may have no incoming edge: directReplyAgentflow_0/,
    ],
    [
      "a bad handle",
      graph(
        [start(), node("conditionAgentflow_0", { conditions: [] }), directReply("directReplyAgentflow_0", "x")],
        [edge("startAgentflow_0", "conditionAgentflow_0"), edge("conditionAgentflow_0", "directReplyAgentflow_0", 3)],
      ),
      /leaves from handle conditionAgentflow_0-output-3, which is none of its 1 branches/,
    ],
    [
      "a missing loop target",
      graph(
        [start(), node("loopAgentflow_0", { loopBackToNode: "llmAgentflow_9-LLM", maxLoopCount: 2 })],
        [edge("startAgentflow_0", "loopAgentflow_0")],
      ),
      /loops back to llmAgentflow_9, which is not in the flow/,
    ],
    [
      "a cycle of edges",
      graph(
        [start(), directReply("directReplyAgentflow_0", "a"), directReply("directReplyAgentflow_1", "b")],
        [
          edge("startAgentflow_0", "directReplyAgentflow_0"),
          edge("directReplyAgentflow_0", "directReplyAgentflow_1"),
          edge("directReplyAgentflow_1", "directReplyAgentflow_0"),
        ],
      ),
      /cycle through directReplyAgentflow_0 .*use a Loop node/,
    ],
  ];
  for (const [what, g, message] of cases) {
    it(what, async () => {
      const rec = recorder();
      const err = await rejection(runAgentflow(g, request({ question: "q" }), rec.ports));
      expect(err.status).toBe(400);
      expect(err.message).toMatch(message);
      expect(rec.checkpoints).toEqual([]);
    });
  }

  it("question and form together", async () => {
    const err = await rejection(runAgentflow(graph([start()], []), request({ question: "q", form: { a: 1 } }), recorder().ports));
    expect(err).toMatchObject({ status: 400, message: "Question and form cannot be provided at the same time" });
  });
});
