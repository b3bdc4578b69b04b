// An agentflow's event stream in Flowise's exact frames (AGENTFLOW.md §8): no `start`, the node
// events, tokens of the answering node, `metadata`, `end`; a failure as `error` then `end`, with
// the execution ERROR and no messages.
import { describe, expect, it } from "vitest";
import { call, json } from "../helpers";
import { afEdge, eventsOf, executionsOf, llm, messagesOf, openAICredential, readStream, saveAgentflowOf, start } from "./flows";

const frame = (event: string, data: unknown) => `message:\ndata:${JSON.stringify({ event, data })}\n\n`;

async function llmFlow() {
  const cred = await openAICredential();
  return (await saveAgentflowOf([start(), llm("llmAgentflow_0", cred)], [afEdge("startAgentflow_0", "llmAgentflow_0")])).id;
}

describe("agentflow stream", () => {
  it("Start → LLM: Flowise's frames byte for byte, tokens as the model makes them, metadata then end", async () => {
    const id = await llmFlow();
    const res = await call("POST", `/prediction/${id}`, { body: { question: "hi there", chatId: "c-stream", streaming: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const { raw, frames } = await readStream(res);

    expect(
      raw.startsWith(
        frame("agentFlowEvent", "INPROGRESS") +
          frame("nextAgentFlow", { nodeId: "startAgentflow_0", nodeLabel: "Start", status: "INPROGRESS" }) +
          frame("nextAgentFlow", { nodeId: "startAgentflow_0", nodeLabel: "Start", status: "FINISHED" }),
      ),
    ).toBe(true);
    // The rest, with consecutive tokens taken together and the optional usage frame left out.
    const shape = eventsOf(frames).filter((e, i, all) => e !== "usageMetadata" && !(e === "token" && all[i - 1] === "token"));
    expect(shape).toEqual([
      "agentFlowEvent",
      "nextAgentFlow",
      "nextAgentFlow",
      "agentFlowExecutedData",
      "nextAgentFlow",
      "token",
      "calledTools",
      "nextAgentFlow",
      "agentFlowExecutedData",
      "agentFlowEvent",
      "metadata",
      "end",
    ]);
    expect(
      frames
        .filter((f) => f.event === "token")
        .map((f) => f.data)
        .join(""),
    ).toBe("echo: hi there");
    expect(frames.filter((f) => f.event === "token").length).toBeGreaterThan(1);
    expect(frames.at(-3)).toEqual({ event: "agentFlowEvent", data: "FINISHED" });

    const [execution] = await executionsOf(id);
    const messages = await messagesOf(id);
    const metadata = frames.at(-2)!;
    expect(metadata).toEqual({
      event: "metadata",
      data: { chatId: "c-stream", chatMessageId: messages[1].id, question: "hi there", sessionId: "c-stream" },
    });
    expect(raw.endsWith(frame("metadata", metadata.data) + frame("end", "[DONE]"))).toBe(true);
    expect(execution.state).toBe("FINISHED");
    expect(messages.map((m) => [m.content, m.executionId])).toEqual([
      ["hi there", execution.id],
      ["echo: hi there", execution.id],
    ]);
    // The last executed-data frame is what the execution stored.
    const lastData = frames.filter((f) => f.event === "agentFlowExecutedData").at(-1)!.data;
    expect(lastData.map((e: any) => e.nodeId)).toEqual(JSON.parse(execution.executionData).map((e: any) => e.nodeId));
  });

  it("a model failure mid-run: the ERROR events, then error and end; the execution ERROR, no messages", async () => {
    const id = await llmFlow();
    const { frames } = await readStream(await call("POST", `/prediction/${id}`, { body: { question: "[fail] now", streaming: true } }));
    const events = eventsOf(frames);
    expect(events.slice(-2)).toEqual(["error", "end"]);
    expect(frames.find((f) => f.event === "nextAgentFlow" && f.data.status === "ERROR")?.data).toMatchObject({ nodeId: "llmAgentflow_0" });
    expect(frames.filter((f) => f.event === "agentFlowEvent").map((f) => f.data)).toEqual(["INPROGRESS", "ERROR"]);
    expect(typeof frames.at(-2)!.data).toBe("string");
    expect((await executionsOf(id)).map((e) => e.state)).toEqual(["ERROR"]);
    expect(await messagesOf(id)).toEqual([]);
  });

  it("GET /chatflows-streaming says an agentflow streams", async () => {
    const id = await llmFlow();
    expect(await json("GET", `/chatflows-streaming/${id}`, { token: null })).toEqual({ isStreaming: true });
  });

  it("with chatbot post-processing on: the rewritten text, as JSON even when streaming was asked (as Flowise)", async () => {
    const cred = await openAICredential();
    const chatbotConfig = JSON.stringify({ postProcessing: { enabled: true, customFunction: "return $flow.rawOutput.toUpperCase();" } });
    const { id } = await saveAgentflowOf([start(), llm("llmAgentflow_0", cred)], [afEdge("startAgentflow_0", "llmAgentflow_0")], {
      chatbotConfig,
    });
    expect(await json("GET", `/chatflows-streaming/${id}`, { token: null })).toEqual({ isStreaming: false });
    const res = await call("POST", `/prediction/${id}`, { body: { question: "quiet please", streaming: true } });
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    const answer = await res.json<any>();
    expect(answer.text).toBe("ECHO: QUIET PLEASE");
    expect((await messagesOf(id)).map((m) => m.content)).toEqual(["quiet please", "ECHO: QUIET PLEASE"]);
  });
});
