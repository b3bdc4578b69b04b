// Sequential agents (Flowise's seq* templates) over POST /prediction on the stand-in: every
// template saves without a warning; the chat-model-only ones answer with agentReasoning in the
// order the steps ran (parallel branches joined, loops, conditions on state, structured output,
// a condition agent); Agent Memory restores the session's conversation from the previous
// execution; graphs that cannot run are 400s naming the node.
import { describe, expect, it } from "vitest";
import agenticRag from "./fixtures/agentic-rag.json";
import branchOut from "./fixtures/branch-out-merge-in.json";
import customerSupport from "./fixtures/customer-support-team-agents.json";
import essay from "./fixtures/essay-writing-grading.json";
import humanInLoopRag from "./fixtures/human-in-loop-rag.json";
import leadOutreach from "./fixtures/lead-outreach.json";
import multiAgents from "./fixtures/multi-agents.json";
import patientConcierge from "./fixtures/patient-concierge.json";
import planAndExecute from "./fixtures/plan-and-execute.json";
import portfolio from "./fixtures/portfolio-management-team.json";
import promptEngineering from "./fixtures/prompt-engineering-team.json";
import softwareTeam from "./fixtures/software-team.json";
import supportRouting from "./fixtures/support-routing-system.json";
import textToSql from "./fixtures/text-to-sql.json";
import { requestsWith } from "../engine/helpers";
import { call, expectError, json } from "../helpers";
import { executionsOf, messagesOf } from "../agentflow-api/flows";
import { type Template, marker, onStandin, saveMultiagent } from "./flows";

const TEMPLATES: Record<string, unknown> = {
  agenticRag,
  branchOut,
  customerSupport,
  essay,
  humanInLoopRag,
  leadOutreach,
  multiAgents,
  patientConcierge,
  planAndExecute,
  portfolio,
  promptEngineering,
  softwareTeam,
  supportRouting,
  textToSql,
};

const names = (reasoning: any[]) => reasoning.map((r) => r.agentName);

async function storedTool(): Promise<string> {
  const tool = await json("POST", "/tools", {
    body: {
      name: "lookup",
      description: "Looks a patient up",
      schema: JSON.stringify([{ property: "q", type: "string", description: "what to look up", required: true }]),
      func: "return 'found ' + $q;",
    },
  });
  return tool.id;
}

describe("Agentflow V1 sequential agents", () => {
  it("all 14 V1 templates save as MULTIAGENT without a warning, flowData kept as sent", async () => {
    expect(Object.keys(TEMPLATES)).toHaveLength(14);
    for (const [name, t] of Object.entries(TEMPLATES)) {
      const flowData = JSON.stringify(t);
      const saved = await json("POST", "/chatflows", { body: { name, type: "MULTIAGENT", flowData } });
      expect(saved.warning, name).toBeUndefined();
      expect(saved.flowData).toBe(flowData);
    }
  });

  it("Branch Out Merge In: A, then B and C (both branches), then D after both; D saw all three answers", async () => {
    const { id } = await saveMultiagent(await onStandin(branchOut));
    const question = `plan a trip ${marker()}`;
    const answer = await json("POST", `/prediction/${id}`, { body: { question } });
    expect(names(answer.agentReasoning)).toEqual(["AgentA", "AgentB", "AgentC", "AgentD"]);
    expect(answer.agentReasoning.every((r: any) => r.nodeName === "seqAgent")).toBe(true);
    expect(answer.agentReasoning.map((r: any) => r.nodeId)).toEqual(["seqAgent_0", "seqAgent_1", "seqAgent_2", "seqAgent_3"]);
    expect(answer.text).toBe(answer.agentReasoning[3].messages[0]);
    const sent = await requestsWith(question);
    const last = sent.at(-1)!.body.messages;
    // D's prompt: its system message, then the question and the answers of A, B and C.
    expect(last.filter((m) => m.role !== "system").map((m) => m.role)).toEqual(["user", "assistant", "assistant", "assistant"]);
    expect((await messagesOf(id))[1].agentReasoning).toHaveLength(4);
  });

  it("Essay Writing & Grading: the condition on the conversation's length loops Writer ↔ Teacher, then ends", async () => {
    const { id } = await saveMultiagent(await onStandin(essay));
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `an essay ${marker()}` } });
    const round = ["Writer", "If loop > 3 times", "Teacher"];
    expect(names(answer.agentReasoning)).toEqual([...round, ...round, ...round, "Writer", "If loop > 3 times"]);
    expect(answer.agentReasoning.filter((r: any) => r.nodeName === "seqCondition").map((r: any) => r.messages[0])).toEqual([
      "Grading",
      "Grading",
      "Grading",
      "End",
    ]);
    expect(answer.text).toBe(answer.agentReasoning.at(-2).messages[0]);
    const [execution] = await executionsOf(id);
    expect(JSON.parse(execution.executionData).filter((e: any) => e.nodeId === "seqLoop_0")).toHaveLength(3);
  });

  it("Multi Agents: the supervisor LLM's structured output goes into state.next, the condition reads it, summarize answers", async () => {
    const { id } = await saveMultiagent(await onStandin(multiAgents));
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `team work ${marker()}` } });
    expect(names(answer.agentReasoning)).toEqual(["Supervisor", "Condition", "summarize"]);
    const supervisor = answer.agentReasoning[0];
    expect(JSON.parse(supervisor.messages[0])).toMatchObject({ next: "FINISH" });
    expect(supervisor.state).toEqual({ next: "FINISH" });
    expect(answer.agentReasoning[1].messages).toEqual(["End"]);
    const sent = await requestsWith("generate a final summarized answers");
    expect(sent.length).toBeGreaterThan(0);
  });

  it("Multi Agents routing to a worker forever: each Loop goes back at most 25 times, then its answer says so", async () => {
    const { id } = await saveMultiagent(
      await onStandin(multiAgents, (nodes) => {
        // The stand-in picks an enum's first value: make the supervisor LLM always choose the engineer.
        const llm = nodes.get("seqLLMNode_0")!;
        llm.data.inputs!.llmStructuredOutput = String(llm.data.inputs!.llmStructuredOutput).replace(
          "FINISH, software_engineer",
          "software_engineer, FINISH",
        );
      }),
    );
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `forever ${marker()}` } });
    expect(answer.text).toBe("Stopped: the loop back to Supervisor ran 25 times in this request.");
    expect(names(answer.agentReasoning.slice(0, 4))).toEqual(["Supervisor", "Condition", "Software Engineer", "Supervisor"]);
    expect(answer.agentReasoning.filter((r: any) => r.agentName === "Software Engineer")).toHaveLength(25);
  });

  it("Custom Function and Execute Flow: the function's answer joins the conversation; the other flow answers the question", async () => {
    const callee = await json("POST", "/chatflows", {
      body: { name: "callee", type: "MULTIAGENT", flowData: JSON.stringify(await onStandin(branchOut)) },
    });
    const base = await onStandin(branchOut);
    const model = base.nodes.find((n) => n.data.category === "Chat Models")!;
    const node = (id: string, name: string, inputs: Record<string, unknown>) => ({
      id,
      position: { x: 0, y: 0 },
      data: { id, name, label: name, category: "Sequential Agents", inputs },
    });
    const nodes = [
      model,
      node("seqStart_0", "seqStart", { model: `{{${model.id}.data.instance}}` }),
      node("seqCustomFunction_0", "seqCustomFunction", {
        functionName: "Shout",
        javascriptFunction: "return $input.toUpperCase() + ' ' + $extra;",
        functionInputVariables: '{"extra":"$flow.state.mood"}',
      }),
      node("seqExecuteFlow_0", "seqExecuteFlow", {
        seqExecuteFlowName: "Team",
        selectedFlow: callee.id,
        seqExecuteFlowInput: "userQuestion",
      }),
      node("seqEnd_0", "seqEnd", {}),
      {
        id: "seqState_0",
        position: { x: 0, y: 0 },
        data: {
          id: "seqState_0",
          name: "seqState",
          label: "State",
          category: "Sequential Agents",
          inputs: { stateMemoryUI: '[{"key":"mood","type":"Replace","defaultValue":"calm"}]' },
        },
      },
    ];
    nodes[1].data.inputs = { ...nodes[1].data.inputs, state: "{{seqState_0.data.instance}}" };
    const e = (source: string, target: string) => ({
      id: `${source}-${target}`,
      source,
      target,
      sourceHandle: `${source}-output-x`,
      targetHandle: `${target}-input-sequentialNode`,
    });
    const { id, warning } = await saveMultiagent({
      nodes,
      edges: [
        e(model.id, "seqStart_0"),
        e("seqState_0", "seqStart_0"),
        e("seqStart_0", "seqCustomFunction_0"),
        e("seqCustomFunction_0", "seqExecuteFlow_0"),
        e("seqExecuteFlow_0", "seqEnd_0"),
      ],
    } as Template);
    expect(warning).toBeUndefined();
    const question = `hello ${marker()}`;
    const answer = await json("POST", `/prediction/${id}`, { body: { question } });
    expect(names(answer.agentReasoning)).toEqual(["Shout", "Team"]);
    expect(answer.agentReasoning[0].messages).toEqual([`${question.toUpperCase()} calm`]);
    expect(answer.text).toBe(`echo: ${question}`);
    expect((await messagesOf(callee.id)).map((m) => m.content)).toEqual([question, answer.text]);
  });

  it("seqStart's input moderation: a refused question is a 400 with the moderation's message, nothing stored", async () => {
    const t = await onStandin(branchOut, (nodes) => {
      nodes.get("seqStart_0")!.data.inputs!.inputModeration = ["{{inputModerationSimple_0.data.instance}}"];
    });
    const moderation = {
      id: "inputModerationSimple_0",
      position: { x: 0, y: 0 },
      data: {
        id: "inputModerationSimple_0",
        name: "inputModerationSimple",
        label: "Simple Moderation",
        category: "Moderation",
        inputs: { denyList: "forbidden", moderationErrorMessage: "Not allowed here." },
      },
    };
    const { id } = await saveMultiagent({ nodes: [...t.nodes, moderation as never], edges: t.edges });
    const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: `a forbidden trip ${marker()}` } }), 400);
    expect(err.message).toBe("Start (seqStart_0): input moderation: Not allowed here.");
    expect(await messagesOf(id)).toEqual([]);
    expect((await json("POST", `/prediction/${id}`, { body: { question: `a fine trip ${marker()}` } })).agentReasoning).toHaveLength(4);
  });

  it("Support Routing System: Frontline answers, the condition agent routes, the chosen team answers", async () => {
    const tool = await storedTool();
    const { id } = await saveMultiagent(
      await onStandin(supportRouting, (nodes) => {
        for (const n of nodes.values()) if (n.data.name === "customTool") n.data.inputs!.selectedTool = tool;
        for (const n of nodes.values())
          if (n.data.category === "Embeddings") Object.assign(n.data.inputs!, { basepath: "http://127.0.0.1:9/v1" });
      }),
    );
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `my invoice ${marker()}` } });
    expect(names(answer.agentReasoning)).toEqual(["Frontline Support", "Router Agent", "Billing Team"]);
    expect(answer.agentReasoning[1].nodeName).toBe("seqConditionAgent");
  });

  // Flowise's generic Agent Memory and its three named checkpointers all mean the session's previous execution (in D1).
  it.each(["agentMemory", "sqliteAgentMemory", "postgresAgentMemory", "mySQLAgentMemory"])(
    "Patient Concierge: %s — the second turn's agent is sent the first turn's conversation (from the previous execution)",
    async (memoryNode) => {
      const tool = await storedTool();
      const { id, warning } = await saveMultiagent(
        await onStandin(patientConcierge, (nodes) => {
          for (const n of nodes.values()) if (n.data.name === "customTool") n.data.inputs!.selectedTool = tool;
          for (const n of nodes.values()) if (n.data.name === "agentMemory") n.data.name = memoryNode;
        }),
      );
      expect(warning).toBeUndefined();
      const m = marker();
      const first = await json("POST", `/prediction/${id}`, { body: { question: `I am Ada ${m}` } });
      expect(names(first.agentReasoning)).toEqual(["If user has been verified", "Identity Verification"]);
      await json("POST", `/prediction/${id}`, { body: { question: `born 1815 ${m}`, chatId: first.chatId } });
      const sent = (await requestsWith(`born 1815 ${m}`))
        .at(-1)!
        .body.messages.filter((x) => x.role !== "system")
        .map((x) => x.content);
      expect(sent).toEqual([`I am Ada ${m}`, first.text, `born 1815 ${m}`]);
      expect((await executionsOf(id)).map((e) => e.state)).toEqual(["FINISHED", "FINISHED"]);
    },
  );

  it("bad graphs are 400s naming the node (no seqStart, two seqStarts, a condition without routes), said at save time too", async () => {
    const t = await onStandin(essay);
    const noStart: Template = {
      nodes: t.nodes.filter((n) => n.data.name !== "seqStart"),
      edges: t.edges.filter((e) => e.source !== "seqStart_0" && e.target !== "seqStart_0"),
    };
    const start = t.nodes.find((n) => n.data.name === "seqStart")!;
    const twoStarts: Template = {
      nodes: [...t.nodes, { ...structuredClone(start), id: "seqStart_1", data: { ...structuredClone(start.data), id: "seqStart_1" } }],
      edges: t.edges,
    };
    const noRoutes: Template = { nodes: t.nodes, edges: t.edges.filter((e) => e.source !== "seqCondition_0") };
    const cases: Array<[Template, RegExp]> = [
      [noStart, /needs a Start node \(seqStart\)/],
      [twoStarts, /exactly one Start node \(seqStart\); this one has 2: Start \(seqStart_0\), Start \(seqStart_1\)/],
      [noRoutes, /\(seqCondition_0\) has no routes/],
    ];
    for (const [graph, message] of cases) {
      const saved = await saveMultiagent(graph);
      expect(saved.warning).toMatch(message);
      const err = await expectError(await call("POST", `/prediction/${saved.id}`, { body: { question: "hi" } }), 400);
      expect(err.message).toBe(saved.warning);
      expect(await executionsOf(saved.id)).toEqual([]);
    }
  });
});
