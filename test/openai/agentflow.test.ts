// Agentflows as OpenAI models: the final answer is the message; a pause for human input answers its
// question (finish_reason stop, metadata.executionId, paused); the next request resumes it with
// metadata.executionId (or, on the Responses API, previous_response_id) and "proceed" / "reject" /
// feedback as its last user message.
import { describe, expect, it } from "vitest";
import { afEdge, approvalFlow, executionsOf, llm, openAICredential, saveAgentflowOf, start } from "../agentflow-api/flows";
import { json } from "../helpers";
import { messagesOf, openaiClient } from "./helpers";

async function approval(description = "Send the reply?") {
  const flow = approvalFlow(description);
  return (await saveAgentflowOf(flow.nodes, flow.edges)).id;
}

describe("an agentflow's answer", () => {
  it("Start → LLM: the LLM's answer is the message, whole (usage reported) and streamed token by token", async () => {
    const credential = await openAICredential();
    const { id } = await saveAgentflowOf([start(), llm("llmAgentflow_0", credential)], [afEdge("startAgentflow_0", "llmAgentflow_0")]);
    const client = openaiClient();
    const whole = await client.chat.completions.create({ model: id, messages: [{ role: "user", content: "plan a trip" }] });
    expect(whole.choices[0]).toMatchObject({ message: { content: "echo: plan a trip" }, finish_reason: "stop" });
    expect(whole.usage).toMatchObject({ prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 });
    const meta = (whole as any).metadata;
    expect(meta).toMatchObject({ chatId: expect.any(String), executionId: expect.any(String) });
    expect(meta.paused).toBeUndefined();
    expect((await json("GET", `/executions/${meta.executionId}`)).state).toBe("FINISHED");

    const stream = await client.chat.completions.create({
      model: id,
      stream: true,
      messages: [{ role: "user", content: "one two three four" }],
    });
    const deltas: string[] = [];
    for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) deltas.push(chunk.choices[0].delta.content);
    expect(deltas.length).toBeGreaterThanOrEqual(4);
    expect(deltas.join("")).toBe("echo: one two three four");
    expect((await messagesOf(id)).map((m) => m.chatType)).toEqual(Array(4).fill("OPENAI"));
  });
});

describe("a pause for human input", () => {
  it("answers the question with finish_reason stop and metadata {executionId, paused}; proceed with metadata.executionId resumes that run", async () => {
    const id = await approval("Send the reply?");
    const client = openaiClient();
    const paused = await client.chat.completions.create({ model: id, messages: [{ role: "user", content: "draft a reply" }] });
    expect(paused.choices[0].finish_reason).toBe("stop");
    expect(paused.choices[0].message.content).toContain("Send the reply?");
    const meta = (paused as any).metadata;
    expect(meta).toMatchObject({ executionId: expect.any(String), paused: "true" });
    expect((await json("GET", `/executions/${meta.executionId}`)).state).toBe("STOPPED");

    // An OpenAI client sends the whole conversation again, with the answer last.
    const done = await client.chat.completions.create({
      model: id,
      metadata: { executionId: meta.executionId },
      messages: [
        { role: "user", content: "draft a reply" },
        { role: "assistant", content: paused.choices[0].message.content! },
        { role: "user", content: "Proceed" },
      ],
    });
    expect(done.choices[0].message.content).toBe("approved");
    expect((done as any).metadata).toMatchObject({ executionId: meta.executionId, chatId: meta.chatId });
    expect((done as any).metadata.paused).toBeUndefined();
    expect((await json("GET", `/executions/${meta.executionId}`)).state).toBe("FINISHED");
    expect(await executionsOf(id)).toHaveLength(1);
    const stored = await messagesOf(id);
    expect(stored.map((m) => [m.role, m.content, m.chatType])).toEqual([
      ["userMessage", "draft a reply", "OPENAI"],
      ["apiMessage", paused.choices[0].message.content, "OPENAI"],
      ["userMessage", "Proceed", "OPENAI"],
      ["apiMessage", "approved", "OPENAI"],
    ]);

    // Nothing is paused any more: resuming it again is a 409.
    const again = await client.chat.completions
      .create({ model: id, metadata: { executionId: meta.executionId }, messages: [{ role: "user", content: "proceed" }] })
      .catch((e) => e);
    expect(again.status).toBe(409);
  });

  it("reject takes the reject branch; other text is feedback that proceeds", async () => {
    const client = openaiClient();
    const rejectFlow = await approval();
    const p1 = await client.chat.completions.create({ model: rejectFlow, messages: [{ role: "user", content: "draft" }] });
    const rejected = await client.chat.completions.create({
      model: rejectFlow,
      metadata: { executionId: (p1 as any).metadata.executionId },
      messages: [{ role: "user", content: "reject" }],
    });
    expect(rejected.choices[0].message.content).toBe("rejected");

    const feedbackFlow = await approval();
    const p2 = await client.chat.completions.create({ model: feedbackFlow, messages: [{ role: "user", content: "draft" }] });
    const proceeded = await client.chat.completions.create({
      model: feedbackFlow,
      metadata: { executionId: (p2 as any).metadata.executionId },
      messages: [{ role: "user", content: "looks good, but shorter" }],
    });
    expect(proceeded.choices[0].message.content).toBe("approved");
    expect((await messagesOf(feedbackFlow)).map((m) => m.content)).toContain("looks good, but shorter");
  });

  it("streams the question, then the stop chunk carrying executionId and paused", async () => {
    const id = await approval("Ship it?");
    const stream = await openaiClient().chat.completions.create({
      model: id,
      stream: true,
      messages: [{ role: "user", content: "draft" }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")).toContain("Ship it?");
    const stop = chunks.find((c) => c.choices[0]?.finish_reason === "stop") as any;
    expect(stop.metadata).toMatchObject({ executionId: expect.any(String), paused: "true" });
  });

  it("an unknown execution is a 404", async () => {
    const id = await approval();
    const err = await openaiClient()
      .chat.completions.create({
        model: id,
        metadata: { executionId: crypto.randomUUID() },
        messages: [{ role: "user", content: "proceed" }],
      })
      .catch((e) => e);
    expect(err.status).toBe(404);
  });

  it("Responses API: previous_response_id of a paused response answers its pause", async () => {
    const id = await approval("Publish?");
    const client = openaiClient();
    const paused = await client.responses.create({ model: id, input: "write the post" });
    expect(paused.output_text).toContain("Publish?");
    expect(paused.metadata).toMatchObject({ paused: "true", executionId: expect.any(String) });
    const done = await client.responses.create({ model: id, input: "reject", previous_response_id: paused.id });
    expect(done.output_text).toBe("rejected");
    expect(done.metadata).toMatchObject({ executionId: paused.metadata!.executionId, chatId: paused.metadata!.chatId });
    expect((await json("GET", `/executions/${paused.metadata!.executionId}`)).state).toBe("FINISHED");
  });
});
