// The custom assistant page's Generate button (POST /assistants/generate/instruction: the chosen chat
// model writes the instructions for a task) and the OpenAI Assistants pages, which need OpenAI's
// retired Assistants API: one clear 400 saying so, never a 404 or 5xx.
import { describe, expect, it } from "vitest";
import { openAICredential, standinUrl } from "../agentflow-api/flows";
import { marker, requestsWith } from "../engine/helpers";
import { call, expectError, json } from "../helpers";

describe("POST /assistants/generate/instruction", () => {
  it("the chosen model writes the instructions; the model got the task", async () => {
    const credential = await openAICredential();
    const selectedChatModel = {
      name: "chatOpenAI",
      inputs: { modelName: "gpt-standin", basepath: `${standinUrl()}/v1`, FLOWISE_CREDENTIAL_ID: credential },
    };
    const m = marker();
    const { content } = await json("POST", "/assistants/generate/instruction", {
      body: { task: `${m} answer questions about our return policy`, selectedChatModel },
    });
    expect(content).toMatch(/^echo: /);
    expect(content).toContain(`${m} answer questions about our return policy`);
    const [sent] = await requestsWith(m);
    expect(sent.body.messages[0]).toMatchObject({ role: "system", content: expect.stringContaining("instructions") });
  });

  it("no task, no model or an unknown one: 400 naming it; without a caller 401", async () => {
    const selectedChatModel = { name: "chatOpenAI", inputs: {} };
    expect(
      (await expectError(await call("POST", "/assistants/generate/instruction", { body: { selectedChatModel } }), 400)).message,
    ).toMatch(/task/);
    await expectError(await call("POST", "/assistants/generate/instruction", { body: { task: "t" } }), 400);
    const unknown = await call("POST", "/assistants/generate/instruction", { body: { task: "t", selectedChatModel: { name: "hal9000" } } });
    expect((await expectError(unknown, 400)).message).toContain("hal9000");
    await expectError(await call("POST", "/assistants/generate/instruction", { token: null, body: { task: "t", selectedChatModel } }), 401);
  });
});

describe("the OpenAI Assistants pages", () => {
  it("every call answers 400 saying they need OpenAI's retired Assistants API; 401 without a caller", async () => {
    for (const [method, path] of [
      ["GET", "/openai-assistants?credential=abc"],
      ["GET", "/openai-assistants/asst_1?credential=abc"],
      ["GET", "/openai-assistants-vector-store?credential=abc"],
      ["POST", "/openai-assistants-vector-store/vs_1?credential=abc"],
      ["POST", "/openai-assistants-file/upload?credential=abc"],
    ] as const) {
      const refused = await expectError(await call(method, path), 400);
      expect(refused.message, path).toMatch(/OpenAI's Assistants API.*Custom Assistant/);
      await expectError(await call(method, path, { token: null }), 401);
    }
  });
});
