// Human in the loop over the API: a run pauses (action + executionId, STOPPED), and a request with
// humanInput resumes it from the stored checkpoint — by session or by executionId, after the rows
// were re-created, from a run whose resuming isolate died — exactly once when two arrive together.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectError, json } from "../helpers";
import {
  afEdge,
  afNode,
  approvalFlow,
  eventsOf,
  executionsOf,
  messagesOf,
  modelConfig,
  openAICredential,
  readStream,
  saveAgentflowOf,
  start,
} from "./flows";

async function pausedRun(description = "Send the reply?") {
  const flow = approvalFlow(description);
  const { id } = await saveAgentflowOf(flow.nodes, flow.edges);
  const chatId = `chat-${crypto.randomUUID().slice(0, 8)}`;
  const paused = await json("POST", `/prediction/${id}`, { body: { question: "draft a reply", chatId } });
  return { id, chatId, paused };
}

const resume = (id: string, body: Record<string, unknown>) => call("POST", `/prediction/${id}`, { body });

describe("pause", () => {
  it("answers the action and executionId; the execution is STOPPED; the API message carries both", async () => {
    const { id, chatId, paused } = await pausedRun("Send the reply?");
    expect(paused.text).toContain("Send the reply?");
    expect(paused.action).toMatchObject({
      mapping: { approve: "Proceed", reject: "Reject" },
      elements: [
        { type: "agentflowv2-approve-button", label: "Proceed" },
        { type: "agentflowv2-reject-button", label: "Reject" },
      ],
      data: { nodeId: "humanInputAgentflow_0", nodeLabel: "Human Input 0" },
    });
    expect(paused.agentFlowExecutedData.at(-1)).toMatchObject({ nodeId: "humanInputAgentflow_0", status: "STOPPED" });

    const execution = await json("GET", `/executions/${paused.executionId}`);
    expect(execution).toMatchObject({ state: "STOPPED", sessionId: chatId, stoppedDate: expect.any(String) });
    expect(JSON.parse(execution.action)).toEqual(paused.action);
    const messages = await messagesOf(id);
    expect(messages.map((m) => [m.role, m.executionId])).toEqual([
      ["userMessage", paused.executionId],
      ["apiMessage", paused.executionId],
    ]);
    expect(messages[1].action).toEqual(paused.action);
  });
});

describe("resume", () => {
  it("proceed with the same chatId runs the proceed branch on the same execution; the old buttons go away", async () => {
    const { id, chatId, paused } = await pausedRun();
    const res = await resume(id, { question: "Proceed", chatId, humanInput: { type: "proceed" } });
    expect(res.status).toBe(200);
    const done = await res.json<any>();
    expect(done.text).toBe("approved");
    expect(done.executionId).toBe(paused.executionId);
    expect(done).not.toHaveProperty("action");

    const execution = await json("GET", `/executions/${paused.executionId}`);
    expect(execution.state).toBe("FINISHED");
    expect(execution.action).toBeNull();
    expect(JSON.parse(execution.executionData).map((e: any) => [e.nodeId, e.status])).toEqual([
      ["startAgentflow_0", "FINISHED"],
      ["humanInputAgentflow_0", "FINISHED"],
      ["directReplyAgentflow_0", "FINISHED"],
    ]);
    const messages = await messagesOf(id);
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ["userMessage", "draft a reply"],
      ["apiMessage", paused.text],
      ["userMessage", "Proceed"],
      ["apiMessage", "approved"],
    ]);
    expect(messages.map((m) => m.action)).toEqual([null, null, null, null]);
    expect(await executionsOf(id)).toHaveLength(1);

    // Nothing is paused any more: by session 404, by id 409.
    await expectError(await resume(id, { chatId, humanInput: { type: "proceed" } }), 404);
    const err = await expectError(await resume(id, { chatId, humanInput: { type: "proceed", executionId: paused.executionId } }), 409);
    expect(err.message).toContain("FINISHED");
  });

  it("reject takes the reject branch; the feedback is the stored user message when no question is sent", async () => {
    const { id, chatId } = await pausedRun();
    const done = await json("POST", `/prediction/${id}`, { body: { chatId, humanInput: { type: "reject", feedback: "too rude" } } });
    expect(done.text).toBe("rejected");
    expect((await messagesOf(id)).map((m) => m.content).slice(2)).toEqual(["too rude", "rejected"]);
  });

  it("404 with nothing paused in the session, 404 for another agentflow's execution, 400 for a startNodeId the run never reached", async () => {
    const { id, chatId, paused } = await pausedRun();
    await expectError(await resume(id, { chatId: "other-chat", humanInput: { type: "proceed" } }), 404);
    const other = approvalFlow();
    const { id: otherFlow } = await saveAgentflowOf(other.nodes, other.edges);
    await expectError(await resume(otherFlow, { humanInput: { type: "proceed", executionId: paused.executionId } }), 404);
    await expectError(await resume(id, { chatId, humanInput: { type: "proceed", startNodeId: "llmAgentflow_9" } }), 400);
    // The pause is untouched by the refusals.
    expect((await json("GET", `/executions/${paused.executionId}`)).state).toBe("STOPPED");
  });

  it("two resumes at once: exactly one runs, the other is 409; one proceed branch, one pair of new messages", async () => {
    const { id, chatId, paused } = await pausedRun();
    const body = { question: "Proceed", chatId, humanInput: { type: "proceed" } };
    const [a, b] = await Promise.all([resume(id, body), resume(id, body)]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 409]);
    const loser = a.status === 409 ? a : b;
    await expectError(loser, 409);
    const execution = await json("GET", `/executions/${paused.executionId}`);
    expect(execution.state).toBe("FINISHED");
    expect(JSON.parse(execution.executionData).filter((e: any) => e.nodeId === "directReplyAgentflow_0")).toHaveLength(1);
    expect(await messagesOf(id)).toHaveLength(4);
  });

  it("resumes from the stored rows alone: deleted and re-inserted (a restart, another isolate), by executionId without a chatId", async () => {
    const { id, chatId, paused } = await pausedRun();
    const rows = await env.DB.prepare("SELECT * FROM execution WHERE id = ?").bind(paused.executionId).all();
    const messages = await env.DB.prepare("SELECT * FROM chat_message WHERE chatflowid = ?").bind(id).all();
    await env.DB.batch([
      env.DB.prepare("DELETE FROM execution WHERE id = ?").bind(paused.executionId),
      env.DB.prepare("DELETE FROM chat_message WHERE chatflowid = ?").bind(id),
    ]);
    for (const row of [
      ...rows.results.map((r) => ["execution", r] as const),
      ...messages.results.map((r) => ["chat_message", r] as const),
    ]) {
      const [table, values] = row;
      const cols = Object.keys(values);
      await env.DB.prepare(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`)
        .bind(...cols.map((c) => values[c]))
        .run();
    }

    const done = await json("POST", `/prediction/${id}`, {
      body: { question: "Proceed", humanInput: { type: "proceed", executionId: paused.executionId } },
    });
    expect(done).toMatchObject({ text: "approved", executionId: paused.executionId, chatId, sessionId: chatId });
    expect((await messagesOf(id)).map((m) => m.chatId)).toEqual([chatId, chatId, chatId, chatId]);
  });

  it("a resume whose isolate died before its first node (INPROGRESS, lease expired) can be resumed again", async () => {
    const { id, chatId, paused } = await pausedRun();
    const longAgo = new Date(Date.now() - 60 * 60_000).toISOString();
    await env.DB.prepare("UPDATE execution SET state = 'INPROGRESS', updatedDate = ? WHERE id = ?").bind(longAgo, paused.executionId).run();
    const done = await json("POST", `/prediction/${id}`, { body: { question: "Proceed", chatId, humanInput: { type: "proceed" } } });
    expect(done.text).toBe("approved");
    expect((await json("GET", `/executions/${paused.executionId}`)).state).toBe("FINISHED");
  });
});

describe("pause and resume streaming", () => {
  it("the pause streams action and STOPPED twice; the resume streams the proceed branch's answer", async () => {
    const flow = approvalFlow("Ship it?");
    const { id } = await saveAgentflowOf(flow.nodes, flow.edges);
    const chatId = `chat-${crypto.randomUUID().slice(0, 8)}`;
    const pause = await readStream(await call("POST", `/prediction/${id}`, { body: { question: "go", chatId, streaming: true } }));
    const events = eventsOf(pause.frames);
    expect(events[0]).toBe("agentFlowEvent");
    expect(events).not.toContain("start");
    expect(pause.frames.filter((f) => f.event === "agentFlowEvent").map((f) => f.data)).toEqual(["INPROGRESS", "STOPPED", "STOPPED"]);
    const action = pause.frames.find((f) => f.event === "action")!.data;
    expect(action.mapping).toEqual({ approve: "Proceed", reject: "Reject" });
    const metadata = pause.frames.find((f) => f.event === "metadata")!.data;
    expect(metadata).toMatchObject({ chatId, sessionId: chatId, question: "go", action });
    expect(events.slice(-2)).toEqual(["metadata", "end"]);
    expect(
      pause.frames
        .filter((f) => f.event === "token")
        .map((f) => f.data)
        .join(""),
    ).toContain("Ship it?");

    const resumed = await readStream(
      await call("POST", `/prediction/${id}`, { body: { question: "Proceed", chatId, streaming: true, humanInput: { type: "proceed" } } }),
    );
    expect(
      resumed.frames
        .filter((f) => f.event === "token")
        .map((f) => f.data)
        .join(""),
    ).toBe("approved");
    expect(resumed.frames.filter((f) => f.event === "agentFlowEvent").map((f) => f.data)).toEqual(["INPROGRESS", "FINISHED"]);
    expect(eventsOf(resumed.frames).slice(-2)).toEqual(["metadata", "end"]);
    expect(resumed.frames.find((f) => f.event === "metadata")!.data).not.toHaveProperty("action");
  });

  it("a refused resume on a streaming request is an ordinary JSON error, not a stream", async () => {
    const { id } = await pausedRun();
    const res = await call("POST", `/prediction/${id}`, { body: { chatId: "nobody", streaming: true, humanInput: { type: "proceed" } } });
    await expectError(res, 404);
  });
});

describe("tool approval", () => {
  it("an Agent tool that needs approval pauses before the call; proceed runs it and the agent answers with its result", async () => {
    const cred = await openAICredential();
    const tool = await json("POST", "/tools", {
      body: {
        name: "refund",
        description: "Refunds an order",
        schema: JSON.stringify([{ property: "order", type: "string", description: "order id", required: true }]),
        func: "return `refunded ${$order}`;",
      },
    });
    const agent = afNode("agentAgentflow_0", "Agent 0", {
      agentModel: "chatOpenAI",
      agentModelConfig: modelConfig(cred),
      agentMessages: [],
      agentEnableMemory: true,
      agentTools: [
        { agentSelectedTool: "customTool", agentSelectedToolConfig: { selectedTool: tool.id }, agentSelectedToolRequiresHumanInput: true },
      ],
    });
    const { id } = await saveAgentflowOf([start(), agent], [afEdge("startAgentflow_0", "agentAgentflow_0")]);
    const paused = await json("POST", `/prediction/${id}`, { body: { question: 'refund it [call refund {"order":"A-7"}]' } });
    expect(paused.action?.data.nodeId).toBe("agentAgentflow_0");
    expect((await json("GET", `/executions/${paused.executionId}`)).state).toBe("STOPPED");

    const done = await json("POST", `/prediction/${id}`, {
      body: { question: "Proceed", chatId: paused.chatId, humanInput: { type: "proceed" } },
    });
    expect(done.text).toContain("refunded A-7");
    expect(done.executionId).toBe(paused.executionId);
    expect((await json("GET", `/executions/${paused.executionId}`)).state).toBe("FINISHED");
  });
});
