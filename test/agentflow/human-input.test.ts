// Human in the loop (AGENTFLOW.md §7): a Human Input node, or an Agent tool that requires approval,
// pauses the run (STOPPED entry with the action, frames); a later request resumes from the stored
// executed data only — as after a restart — and takes the proceed or reject branch.
import { describe, expect, it } from "vitest";
import { runAgentflow } from "../../src/engine/agentflow";
import type { ExecutedData, HumanInput } from "../../src/engine/agentflow/types";
import { createTool } from "../../src/services/tools";
import { db } from "../engine/helpers";
import {
  agent,
  directReply,
  edge,
  graph,
  llm,
  marker,
  modelConfig,
  node,
  outputOf,
  recorder,
  rejection,
  request,
  requestsWith,
  run,
  start,
} from "./helpers";

const humanInput = (inputs: Record<string, unknown> = {}) =>
  node(
    "humanInputAgentflow_0",
    { humanInputDescriptionType: "fixed", humanInputDescription: "Do you want to proceed?", humanInputEnableFeedback: true, ...inputs },
    { label: "Human Input 0" },
  );

/** Start → LLM → Human Input → proceed: Direct Reply "approved: …" / reject: Direct Reply "rejected". */
const approval = (inputs: Record<string, unknown> = {}) =>
  graph(
    [
      start(),
      llm("llmAgentflow_0", {}, "Draft"),
      humanInput(inputs),
      directReply("directReplyAgentflow_0", "approved: {{ humanInputAgentflow_0 }} after {{ llmAgentflow_0 }}"),
      directReply("directReplyAgentflow_1", "rejected"),
    ],
    [
      edge("startAgentflow_0", "llmAgentflow_0"),
      edge("llmAgentflow_0", "humanInputAgentflow_0"),
      edge("humanInputAgentflow_0", "directReplyAgentflow_0", 0),
      edge("humanInputAgentflow_0", "directReplyAgentflow_1", 1),
    ],
  );

const resume = (executedData: ExecutedData[], humanInput: HumanInput, question = humanInput.type === "proceed" ? "Proceed" : "Reject") => ({
  question,
  resume: { executionId: "e1", executedData, humanInput },
});

describe("Human Input", () => {
  it("pauses: STOPPED entry with the action, the description as text, Flowise's frames (STOPPED twice)", async () => {
    const m = marker();
    const out = await run(approval(), { question: `write ${m}`, streaming: true });
    expect(out.state).toBe("STOPPED");
    expect(out.text).toBe(`echo: write ${m}\n\nDo you want to proceed?`);
    const stopped = out.executedData.at(-1)!;
    expect(stopped).toMatchObject({
      nodeId: "humanInputAgentflow_0",
      nodeLabel: "Human Input 0",
      status: "STOPPED",
      previousNodeIds: ["llmAgentflow_0"],
    });
    expect(out.action).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      mapping: { approve: "Proceed", reject: "Reject" },
      elements: [
        { type: "agentflowv2-approve-button", label: "Proceed" },
        { type: "agentflowv2-reject-button", label: "Reject" },
      ],
      data: {
        nodeId: "humanInputAgentflow_0",
        nodeLabel: "Human Input 0",
        input: {
          messages: [
            { role: "user", content: `write ${m}` },
            { role: "user", content: `echo: write ${m}`, name: "draft" },
          ],
          humanInputEnableFeedback: true,
        },
      },
    });
    expect(stopped.data.output!.humanInputAction).toEqual(out.action);
    expect(out.rec.checkpoints.at(-1)!.state).toBe("STOPPED");
    const tail = out.rec.frames.slice(-6).map((f) => [f.event, f.event === "agentFlowExecutedData" ? "…" : f.data]);
    expect(tail).toEqual([
      ["token", `echo: write ${m}\n\nDo you want to proceed?`],
      ["nextAgentFlow", { nodeId: "humanInputAgentflow_0", nodeLabel: "Human Input 0", status: "STOPPED" }],
      ["agentFlowExecutedData", "…"],
      ["agentFlowEvent", "STOPPED"],
      ["action", out.action],
      ["agentFlowEvent", "STOPPED"],
    ]);
  });

  it("proceed (from the stored data only, as after a restart): the proceed branch runs, the pause entry is replaced", async () => {
    const m = marker();
    const paused = await run(approval(), { question: `write ${m}` });
    const stored = JSON.parse(JSON.stringify(paused.executedData)) as ExecutedData[];
    const out = await run(approval(), resume(stored, { type: "proceed", feedback: "looks good" }));
    expect(out.state).toBe("FINISHED");
    expect(out.text).toBe(`approved: looks good after echo: write ${m}`);
    expect(out.executedData.map((e) => [e.nodeId, e.status])).toEqual([
      ["startAgentflow_0", "FINISHED"],
      ["llmAgentflow_0", "FINISHED"],
      ["humanInputAgentflow_0", "FINISHED"],
      ["directReplyAgentflow_0", "FINISHED"],
    ]);
    expect(outputOf(out.executedData, "humanInputAgentflow_0")).toEqual({
      content: "looks good",
      conditions: [
        { type: "proceed", startNodeId: "humanInputAgentflow_0", feedback: "looks good", isFulfilled: true },
        { type: "reject", startNodeId: "humanInputAgentflow_0", feedback: "looks good", isFulfilled: false },
      ],
    });
    expect(out.executedData[2].data.chatHistory).toEqual([{ role: "user", content: "looks good" }]);
    expect(await requestsWith(m)).toHaveLength(1); // the model was not asked again
  });

  it("reject takes the reject branch; without feedback the content is the type", async () => {
    const paused = await run(approval(), { question: "w" });
    const out = await run(approval(), resume(paused.executedData, { type: "reject" }));
    expect(out.text).toBe("rejected");
    expect(outputOf(out.executedData, "humanInputAgentflow_0")!.content).toBe("reject");
  });

  it("feedback is not kept when the node's feedback is off", async () => {
    const paused = await run(approval({ humanInputEnableFeedback: false }), { question: "w" });
    const out = await run(approval({ humanInputEnableFeedback: false }), resume(paused.executedData, { type: "proceed", feedback: "fb" }));
    expect(outputOf(out.executedData, "humanInputAgentflow_0")!.conditions[0].feedback).toBeUndefined();
    expect(out.executedData[2].data.chatHistory).toBeUndefined();
  });

  it("dynamic description: the model writes it from the conversation (streamed)", async () => {
    const m = marker();
    const g = approval({
      humanInputDescriptionType: "dynamic",
      humanInputModel: "chatOpenAI",
      humanInputModelConfig: modelConfig(),
      humanInputModelPrompt: `Ask ${m}`,
    });
    const out = await run(g, { question: `draft ${m}`, streaming: true });
    expect(out.text).toBe(`echo: Ask ${m}`);
    const [, ask] = (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions"));
    expect(ask.body.messages).toEqual([
      { role: "user", content: `draft ${m}` },
      { role: "user", content: `echo: draft ${m}` },
      { role: "user", content: `Ask ${m}` },
    ]);
  });

  it("looping back to a Human Input pauses again; a second resume goes on", async () => {
    const g = graph(
      [
        start(),
        humanInput(),
        node("loopAgentflow_0", { loopBackToNode: "humanInputAgentflow_0-Human Input 0", maxLoopCount: 3 }),
        directReply("directReplyAgentflow_0", "done"),
      ],
      [
        edge("startAgentflow_0", "humanInputAgentflow_0"),
        edge("humanInputAgentflow_0", "loopAgentflow_0", 1),
        edge("humanInputAgentflow_0", "directReplyAgentflow_0", 0),
      ],
    );
    const first = await run(g, { question: "q" });
    expect(first.state).toBe("STOPPED");
    const rejected = await run(g, resume(first.executedData, { type: "reject" }));
    expect(rejected.state).toBe("STOPPED");
    expect(rejected.executedData.map((e) => [e.nodeId, e.status])).toEqual([
      ["startAgentflow_0", "FINISHED"],
      ["humanInputAgentflow_0", "FINISHED"],
      ["loopAgentflow_0", "FINISHED"],
      ["humanInputAgentflow_0", "STOPPED"],
    ]);
    const done = await run(g, resume(rejected.executedData, { type: "proceed" }));
    expect(done).toMatchObject({ state: "FINISHED", text: "done" });
  });

  it("a resume that names no paused node, a bad type, or a finished node: 400 before anything runs", async () => {
    const paused = await run(approval(), { question: "w" });
    const finished = await run(approval(), resume(paused.executedData, { type: "proceed" }));
    const cases: Array<[ExecutedData[], HumanInput, RegExp]> = [
      [finished.executedData, { type: "proceed" }, /has no paused node to resume/],
      [paused.executedData, { type: "maybe" as "proceed" }, /humanInput.type must be "proceed" or "reject"/],
      [
        paused.executedData,
        { type: "proceed", startNodeId: "llmAgentflow_0" },
        /Node llmAgentflow_0 of execution e1 is not waiting for input/,
      ],
      [paused.executedData, { type: "proceed", startNodeId: "ghost_0" }, /Node ghost_0 not found in execution e1/],
    ];
    for (const [data, hi, message] of cases) {
      const rec = recorder();
      const err = await rejection(runAgentflow(approval(), request(resume(data, hi)), rec.ports));
      expect(err).toMatchObject({ status: 400, message: expect.stringMatching(message) });
      expect(rec.checkpoints).toEqual([]);
    }
  });

  it("an ERROR right after the pause (a failed resume) is dropped and the resume retried", async () => {
    const paused = await run(approval(), { question: "w" });
    const failedResume = [
      ...paused.executedData,
      {
        nodeId: "humanInputAgentflow_0",
        nodeLabel: "Human Input 0",
        previousNodeIds: [],
        status: "ERROR" as const,
        data: { id: "humanInputAgentflow_0", name: "humanInputAgentflow", error: "x" },
      },
    ];
    const out = await run(approval(), resume(failedResume, { type: "reject" }));
    expect(out).toMatchObject({ state: "FINISHED", text: "rejected" });
  });

  it("a Human Input inside an Iteration is refused (it could not be resumed)", async () => {
    const g = graph(
      [
        start(),
        node("iterationAgentflow_0", { iterationInput: "[1]" }),
        { ...humanInput(), parentNode: "iterationAgentflow_0", extent: "parent" },
      ],
      [edge("startAgentflow_0", "iterationAgentflow_0")],
    );
    const err = await rejection(runAgentflow(g, request({ question: "q" }), recorder().ports));
    expect(err.message).toMatch(/a humanInputAgentflow node cannot be inside an Iteration \(its pause could not be resumed\)/);
  });
});

describe("Agent tools that require human input", () => {
  const toolFlow = async () => {
    const send = await createTool(
      { db: db() },
      {
        name: "send_mail",
        description: "sends",
        schema: JSON.stringify([{ property: "to", type: "string", required: true }]),
        func: "return 'sent to ' + $to",
      },
    );
    return graph(
      [
        start(),
        agent(
          "agentAgentflow_0",
          {
            agentTools: [
              {
                agentSelectedTool: "customTool",
                agentSelectedToolConfig: { selectedTool: send.id },
                agentSelectedToolRequiresHumanInput: true,
              },
              { agentSelectedTool: "calculator", agentSelectedToolConfig: {} },
            ],
          },
          "Mailer",
        ),
      ],
      [edge("startAgentflow_0", "agentAgentflow_0")],
    );
  };

  it("pauses before the tool runs; the checkpoint keeps the pending call; proceed runs it and the model answers", async () => {
    const m = marker();
    const g = await toolFlow();
    const paused = await run(g, { question: `[chatty] [call send_mail {"to":"bob"}] ${m}`, streaming: true });
    expect(paused.state).toBe("STOPPED");
    expect(paused.text).toBe(
      'Calling send_mail.\nAttempting to use tool:\n```json\n{\n  "name": "send_mail",\n  "args": {\n    "to": "bob"\n  },\n  "id": "call_0",\n  "type": "tool_call"\n}\n```',
    );
    expect(paused.usedTools).toEqual([]);
    const pending = (paused.action!.data.input.messages as Array<{ role: string; tool_calls?: unknown }>).at(-1);
    expect(pending).toEqual({
      role: "assistant",
      content: "Calling send_mail.",
      tool_calls: [{ id: "call_0", name: "send_mail", args: { to: "bob" } }],
    });
    expect(outputOf(paused.executedData, "agentAgentflow_0")!.isWaitingForHumanInput).toBe(true);
    expect(paused.rec.frames.map((f) => f.event)).toContain("action");

    const done = await run(g, resume(JSON.parse(JSON.stringify(paused.executedData)), { type: "proceed" }));
    expect(done.state).toBe("FINISHED");
    expect(done.text).toBe("tools said: sent to bob");
    expect(done.usedTools).toEqual([{ tool: "send_mail", toolInput: { to: "bob" }, toolOutput: "sent to bob" }]);
    const calls = (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions"));
    expect(calls).toHaveLength(2); // the paused turn, then the answer after the tool (the call was not asked again)
    expect(calls[1].body.messages.map((x: { role: string }) => x.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("reject drops the call and the tool: the model is asked again without it, and the mail is never sent", async () => {
    const m = marker();
    const g = await toolFlow();
    const paused = await run(g, { question: `[call send_mail {"to":"eve"}] ${m}` });
    const done = await run(g, resume(paused.executedData, { type: "reject" }));
    expect(done.state).toBe("FINISHED");
    const [, again] = (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions"));
    expect(again.body.messages.map((x: { role: string }) => x.role)).toEqual(["user"]);
    expect((again.body as any).tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(["calculator"]);
    // The stand-in insists on its planned call: the tool is gone, so it only gets an error back.
    expect(done.usedTools).toEqual([
      {
        tool: "send_mail",
        toolInput: { to: "eve" },
        toolOutput: "",
        error: 'there is no tool named "send_mail". The tools are: calculator.',
      },
    ]);
    expect(done.text).not.toContain("sent to");
  });
});
