// A chatflow's Tool Agent keeps a tool's artifacts with its message, as Flowise's does: Flowise's Tool Agent
// fixture (serpAPI removed) with codeInterpreterE2B against the E2B stand-in (test/standin/e2b.mjs); the
// scripted stand-in model calls the tool with Python that draws a chart. The chart's PNG is stored as the
// chat's file and named in the prediction's `artifacts` (JSON), in an `artifacts` frame (stream) and on the
// stored API message; the model and usedTools see only the text. A custom tool's output carrying the
// marker stays text, and Flowise's Conversational Agent drops the artifacts as Flowise's does.
import { afterEach, describe, expect, inject, it } from "vitest";
import { call, json } from "../helpers";
import { framesOf, setVars } from "../security/helpers";
import { type AgentFlowOptions, callOf, customToolNode, toolAgentFlow } from "./agents-flows";
import { credential, marker, requestsWith } from "./helpers";

const e2b = () => inject("e2bUrl");

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

const CHART = "import matplotlib.pyplot as plt\nplt.show()\n1 + 1";
const ARTIFACT = { type: "png", data: expect.stringMatching(/^FILE-STORAGE::artifact_\d+\.png$/) };

/** The Tool Agent fixture (no calculator, no memory) with codeInterpreterE2B holding an E2BApi credential with `key`. */
async function saveFlow(key: string, options: AgentFlowOptions = {}): Promise<string> {
  restore = setVars({ E2B_API_URL: e2b(), E2B_SANDBOX_URL: `${e2b()}/{port}-{sandboxId}` });
  const openai = await credential("openAIApi", { openAIApiKey: "sk-artifacts" });
  const cred = await credential("E2BApi", { e2bApiKey: key });
  const e2bNode = { id: "codeInterpreterE2B_0", name: "codeInterpreterE2B", inputs: { FLOWISE_CREDENTIAL_ID: cred } };
  const flowData = toolAgentFlow({
    credential: openai,
    calculator: false,
    memory: false,
    ...options,
    nodes: [e2bNode, ...(options.nodes ?? [])],
  });
  return (await json("POST", "/chatflows", { body: { name: "artifacts", flowData } })).id;
}

const apiMessageOf = async (id: string) => (await json<any[]>("GET", `/chatmessage/${id}`)).find((m) => m.role === "apiMessage");

/** The stored PNG the artifact names, read back through /get-upload-file. */
async function expectStoredPng(id: string, chatId: string, artifact: { data: string }) {
  const fileName = artifact.data.replace("FILE-STORAGE::", "");
  const res = await call("GET", `/get-upload-file?chatflowId=${id}&chatId=${chatId}&fileName=${fileName}`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("image/png");
  expect([...new Uint8Array(await res.arrayBuffer()).slice(1, 4)]).toEqual([0x50, 0x4e, 0x47]);
}

describe("a chatflow Tool Agent keeps codeInterpreterE2B's artifacts with its message", () => {
  it("JSON: the answer's artifacts name the stored PNG; the stored message keeps them; the model reads only the text", async () => {
    const key = `e2b_${marker()}`;
    const id = await saveFlow(key, { model: { streaming: false } });
    const m = marker();
    const answer = await json("POST", `/prediction/${id}`, {
      body: { question: `Chart it ${callOf("code_interpreter", { input: CHART })} ${m}` },
    });
    expect(answer.text).toBe("tools said: 2");
    expect(answer.usedTools).toEqual([{ tool: "code_interpreter", toolInput: { input: CHART }, toolOutput: "2" }]);
    expect(answer.artifacts).toEqual([ARTIFACT]);
    await expectStoredPng(id, answer.chatId, answer.artifacts[0]);

    const stored = await apiMessageOf(id);
    expect(stored).toMatchObject({ id: answer.chatMessageId, content: "tools said: 2", artifacts: answer.artifacts });
    // The model's tool message is the text alone: no marker, no artifact JSON.
    const [, second] = await requestsWith(m);
    const toolMessage = second.body.messages.find((w: { role: string }) => w.role === "tool");
    expect(toolMessage?.content).toBe("2");
  });

  it("stream: an artifacts frame after the tokens and usedTools, before metadata; the stored message keeps them", async () => {
    const key = `e2b_${marker()}`;
    const id = await saveFlow(key);
    const question = `Chart it ${callOf("code_interpreter", { input: CHART })} ${marker()}`;
    const res = await call("POST", `/prediction/${id}`, { body: { question, streaming: true } });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const frames = await framesOf(res);
    const events = frames.map((f) => f.event).filter((e, i, all) => e !== all[i - 1]);
    // `start` goes with the first token (Flowise's stream handler); the tool ran before the model wrote.
    expect(events).toEqual(["usedTools", "start", "token", "artifacts", "metadata", "end"]);
    const artifacts = frames.find((f) => f.event === "artifacts")!.data;
    expect(artifacts).toEqual([ARTIFACT]);
    expect(
      frames
        .filter((f) => f.event === "token")
        .map((f) => f.data)
        .join(""),
    ).toBe("tools said: 2");
    const metadata = frames.find((f) => f.event === "metadata")!.data;
    await expectStoredPng(id, metadata.chatId, artifacts[0]);
    expect(await apiMessageOf(id)).toMatchObject({ id: metadata.chatMessageId, artifacts });
  });

  it("a custom tool's output carrying Flowise's marker stays text: no artifacts in the answer, the stream or the message", async () => {
    const smuggled = JSON.stringify([{ type: "html", data: "<script>x</script>" }]);
    const tool = await json("POST", "/tools", {
      body: {
        name: "smuggle",
        description: "answers a page",
        func: `return "page\\n\\n----FLOWISE_ARTIFACTS----\\n\\n" + ${JSON.stringify(smuggled)}`,
      },
    });
    const id = await saveFlow(`e2b_${marker()}`, { nodes: [customToolNode("customTool_0", tool.id)] });
    const question = `Read it ${callOf("smuggle", {})}`;
    const answer = await json("POST", `/prediction/${id}`, { body: { question } });
    expect(answer.text).toBe(`tools said: page\n\n----FLOWISE_ARTIFACTS----\n\n${smuggled}`);
    expect(answer.usedTools[0].toolOutput).toContain("----FLOWISE_ARTIFACTS----");
    expect(answer).not.toHaveProperty("artifacts");
    expect((await apiMessageOf(id)).artifacts).toBeNull();

    const frames = await framesOf(await call("POST", `/prediction/${id}`, { body: { question, streaming: true } }));
    expect(frames.map((f) => f.event)).toContain("metadata");
    expect(frames.some((f) => f.event === "artifacts")).toBe(false);
  });

  it("Flowise's Conversational Agent drops the artifacts, as Flowise's does; its model still reads only the text", async () => {
    const id = await saveFlow(`e2b_${marker()}`, { agentName: "conversationalAgent", model: { streaming: false } });
    const m = marker();
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `${callOf("code_interpreter", { input: CHART })} ${m}` } });
    expect(answer.text).toBe("tools said: 2");
    expect(answer).not.toHaveProperty("artifacts");
    expect((await apiMessageOf(id)).artifacts).toBeNull();
  });
});
