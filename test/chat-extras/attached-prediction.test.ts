// A file attached in full (chatbotConfig.fullFileUpload): the chat posts it to /attachments, then
// sends its text with the question as a `file:full` upload. The model reads `<doc name='…'>text</doc>`
// before the question (an agentflow too); the stored question is the one asked, and the message
// records the upload as `stored-file:full` without its text.
import { describe, expect, it } from "vitest";
import { afEdge, llm, openAICredential, saveAgentflowOf, start } from "../agentflow-api/flows";
import { marker, requestsWith } from "../engine/helpers";
import { call, json, uuid } from "../helpers";
import { standinFlow } from "../latency/helpers";

const FULL_UPLOAD = JSON.stringify({ fullFileUpload: { status: true, allowedUploadFileTypes: "text/plain" } });

async function attachedText(flowId: string, chatId: string, name: string, text: string): Promise<string> {
  const data = new FormData();
  data.append("files", new File([text], name, { type: "text/plain" }));
  const res = await call("POST", `/attachments/${flowId}/${chatId}`, { raw: data });
  expect(res.status).toBe(200);
  return ((await res.json()) as { content: string }[])[0].content;
}

const sentTo = async (m: string) =>
  (await requestsWith(m))
    .at(-1)!
    .body.messages.map((x: { content: unknown }) => (typeof x.content === "string" ? x.content : JSON.stringify(x.content)))
    .join("\n");

describe("file:full uploads in a prediction", () => {
  it("a chatflow: the model reads the file before the question; the stored question and upload are Flowise's", async () => {
    const flowId = await standinFlow();
    await json("PUT", `/chatflows/${flowId}`, { body: { chatbotConfig: FULL_UPLOAD } });
    const chatId = uuid();
    const content = await attachedText(flowId, chatId, "notes.txt", "The tide turns at noon.");
    const m = marker();
    const answer = await json("POST", `/prediction/${flowId}`, {
      body: {
        question: `${m} when does the tide turn?`,
        chatId,
        uploads: [{ type: "file:full", name: "notes.txt", mime: "text/plain", data: content }],
      },
    });
    expect(answer.question).toBe(`${m} when does the tide turn?`);
    const sent = await sentTo(m);
    expect(sent).toContain("<doc name='notes.txt'>The tide turns at noon.</doc>");
    expect(sent.indexOf("<doc name='notes.txt'>")).toBeLessThan(sent.indexOf(`${m} when does the tide turn?`));
    const [question] = await json("GET", `/chatmessage/${flowId}?chatId=${chatId}&order=ASC`);
    expect(question.content).toBe(`${m} when does the tide turn?`);
    expect(question.fileUploads).toEqual([{ type: "stored-file:full", name: "notes.txt", mime: "text/plain" }]);
  });

  it("streamed too, and an agentflow's LLM reads it as its file text", async () => {
    const flowId = await standinFlow();
    const m = marker();
    const upload = { type: "file:full", name: "a.txt", mime: "text/plain", data: "Apples are red." };
    const res = await call("POST", `/prediction/${flowId}`, { body: { question: `${m} colour?`, streaming: true, uploads: [upload] } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"event":"end"');
    expect(await sentTo(m)).toContain("<doc name='a.txt'>Apples are red.</doc>");

    const cred = await openAICredential();
    const { id } = await saveAgentflowOf([start(), llm("llmAgentflow_0", cred)], [afEdge("startAgentflow_0", "llmAgentflow_0")]);
    const m2 = marker();
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `${m2} colour?`, uploads: [upload] } });
    expect(answer.text).toBeTruthy();
    expect(await sentTo(m2)).toContain("<doc name='a.txt'>Apples are red.</doc>");
  });
});
