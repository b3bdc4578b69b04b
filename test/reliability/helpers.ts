// Shared by the reliability tests: an echo chatflow at the stand-in (its answer repeats the
// question, so each stored answer names the question it belongs to), and a settled list of results.
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, flowDataOf, pointAtStandin } from "../engine/helpers";
import { json } from "../helpers";

/** The llm-chain template with its prompt reduced to the question: the stand-in answers "echo: <question>". */
export async function saveEchoFlow(extra: Record<string, unknown> = {}): Promise<string> {
  const cred = (
    await json("POST", "/credentials", { body: { name: "openai", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-test" } } })
  ).id;
  const flowData = flowDataOf(llmChain as unknown as Fixture, (nodes) => {
    for (const node of nodes.values()) if (node.data.category === "Chat Models") pointAtStandin(node, cred);
    nodes.get("promptTemplate_0")!.data.inputs = { ...nodes.get("promptTemplate_0")!.data.inputs, template: "{product}" };
  });
  return (await json("POST", "/chatflows", { body: { name: "echo", flowData, ...extra } })).id;
}

export const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls until `probe` answers something other than undefined. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await wait(25);
  }
}
