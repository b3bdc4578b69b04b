// Flowise's assemblyAI node (SpeechToText): a descriptor in Flowise, here too — the catalogue offers it
// with Flowise's shape and credential, and a chatflow holding it saves without a warning and runs
// (transcription itself comes from the chatflow's speech-to-text settings: test/routes speech tests).
import { expect, it } from "vitest";
import { call, json } from "../helpers";
import { standinUrl } from "./helpers";
import { flow, ref } from "./retrieval-flows";

it("the catalogue offers assemblyAI with Flowise's name, category and assemblyAIApi credential", async () => {
  const node = await json("GET", "/nodes/assemblyAI");
  expect(node).toMatchObject({ name: "assemblyAI", label: "AssemblyAI", type: "AssemblyAI", category: "SpeechToText", inputs: [] });
  expect(node.credential).toMatchObject({ name: "credential", credentialNames: ["assemblyAIApi"] });
  expect((await call("GET", "/components-credentials/assemblyAIApi")).status).toBe(200);
});

it("a chatflow holding the node saves without an unsupported-node warning and answers", async () => {
  const flowData = flow([
    ["stt_0", "assemblyAI", "SpeechToText", {}],
    ["model_0", "chatOpenAI", "Chat Models", { modelName: "m", basepath: `${standinUrl()}/v1` }],
    ["chain_0", "conversationChain", "Chains", { model: ref("model_0") }],
  ] as never);
  const saved = await json("POST", "/chatflows", { body: { name: "stt", flowData } });
  expect(saved.warning).toBeUndefined();
  const answer = await json("POST", `/prediction/${saved.id}`, { body: { question: "hello assemblyAI node" } });
  expect(answer.text).toContain("hello assemblyAI node");
});
