// POST /prediction/{id} on agentflows (JSON): Flowise's answer fields, the execution row and the
// stored messages; the 400s; and nothing half-stored when a run fails.
import { describe, expect, it } from "vitest";
import { call, expectError, json } from "../helpers";
import { afEdge, directReply, executionsOf, llm, messagesOf, openAICredential, saveAgentflowOf, start, standinUrl } from "./flows";

const marker = () => `m${crypto.randomUUID().slice(0, 8)}`;

async function llmFlow() {
  const cred = await openAICredential();
  const { id } = await saveAgentflowOf([start(), llm("llmAgentflow_0", cred)], [afEdge("startAgentflow_0", "llmAgentflow_0")]);
  return id;
}

describe("agentflow prediction (JSON)", () => {
  it("answers Flowise's fields; the execution is FINISHED with the same executed data; both messages carry the executionId", async () => {
    const id = await llmFlow();
    const m = marker();
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `hello ${m}`, chatId: `chat-${m}` } });
    expect(answer.text).toBe(`echo: hello ${m}`);
    expect(Object.keys(answer)).toEqual([
      "text",
      "question",
      "chatId",
      "chatMessageId",
      "executionId",
      "agentFlowExecutedData",
      "sessionId",
      "sourceDocuments",
      "usedTools",
    ]);
    expect(answer).toMatchObject({
      question: `hello ${m}`,
      chatId: `chat-${m}`,
      sessionId: `chat-${m}`,
      sourceDocuments: [],
      usedTools: [],
    });
    expect(answer.agentFlowExecutedData.map((e: any) => [e.nodeId, e.status])).toEqual([
      ["startAgentflow_0", "FINISHED"],
      ["llmAgentflow_0", "FINISHED"],
    ]);
    // Credential ids are not in the answer.
    expect(JSON.stringify(answer)).not.toContain("FLOWISE_CREDENTIAL_ID");

    const execution = await json("GET", `/executions/${answer.executionId}`);
    expect(execution).toMatchObject({ state: "FINISHED", agentflowId: id, sessionId: `chat-${m}`, action: null, stoppedDate: null });
    const stored = JSON.parse(execution.executionData);
    expect(stored.map((e: any) => e.nodeId)).toEqual(["startAgentflow_0", "llmAgentflow_0"]);
    expect(stored[1].data.output.content).toBe(answer.text);

    const messages = await messagesOf(id);
    expect(messages.map((x) => [x.role, x.content, x.executionId])).toEqual([
      ["userMessage", `hello ${m}`, answer.executionId],
      ["apiMessage", answer.text, answer.executionId],
    ]);
    expect(messages[1].id).toBe(answer.chatMessageId);
  });

  it("a second turn of the session is a new execution, and the model sees the first turn (memory)", async () => {
    const id = await llmFlow();
    const m = marker();
    const first = await json("POST", `/prediction/${id}`, { body: { question: `my name is Ada ${m}` } });
    const second = await json("POST", `/prediction/${id}`, { body: { question: `who am I? ${m}`, chatId: first.chatId } });
    expect(second.executionId).not.toBe(first.executionId);
    expect((await executionsOf(id)).map((e) => e.state)).toEqual(["FINISHED", "FINISHED"]);
    const sent = await (await fetch(`${standinUrl()}/requests?contains=${encodeURIComponent(`who am I? ${m}`)}`)).json<any[]>();
    expect(JSON.stringify(sent.at(-1).body.messages)).toContain(`my name is Ada ${m}`);
  });

  it("a failing model: 502 naming it, the execution ERROR with the failed node, no messages stored", async () => {
    const id = await llmFlow();
    const res = await call("POST", `/prediction/${id}`, { body: { question: `[fail] ${marker()}` } });
    const err = await expectError(res, 502);
    expect(err.message.length).toBeGreaterThan(0);
    const [execution] = await executionsOf(id);
    expect(execution.state).toBe("ERROR");
    const data = JSON.parse(execution.executionData);
    expect(data.at(-1)).toMatchObject({ nodeId: "llmAgentflow_0", status: "ERROR" });
    expect(await messagesOf(id)).toEqual([]);
  });

  it("a Direct Reply answers without a model; form input answers `form` instead of `question`", async () => {
    const { id } = await saveAgentflowOf(
      [
        start({ startInputType: "formInput", formInputTypes: [{ type: "string", label: "Name", name: "name" }] }),
        directReply("directReplyAgentflow_0", "Hi {{ $form.name }}"),
      ],
      [afEdge("startAgentflow_0", "directReplyAgentflow_0")],
    );
    const answer = await json("POST", `/prediction/${id}`, { body: { form: { name: "Ada" } } });
    expect(answer.text).toBe("Hi Ada");
    expect(answer.form).toEqual({ name: "Ada" });
    expect(answer).not.toHaveProperty("question");
    expect((await messagesOf(id)).map((x) => x.content)).toEqual(["name: Ada", "Hi Ada"]);
  });

  it("400s before anything is stored: question and form together, a graph that cannot run, a bad humanInput", async () => {
    const id = await llmFlow();
    await expectError(await call("POST", `/prediction/${id}`, { body: { question: "hi", form: { a: 1 } } }), 400);
    await expectError(await call("POST", `/prediction/${id}`, { body: { question: "hi", humanInput: { type: "maybe" } } }), 400);

    const twoStarts = await saveAgentflowOf(
      [start(), { ...start(), id: "startAgentflow_1", data: { ...start().data, id: "startAgentflow_1" } }],
      [],
    );
    expect(twoStarts.warning).toMatch(/Start/);
    const err = await expectError(await call("POST", `/prediction/${twoStarts.id}`, { body: { question: "hi" } }), 400);
    expect(err.message).toBe(twoStarts.warning);
    for (const flow of [id, twoStarts.id]) {
      expect(await executionsOf(flow)).toEqual([]);
      expect(await messagesOf(flow)).toEqual([]);
    }
  });
});
