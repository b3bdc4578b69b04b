// Shared by the security tests: a chatflow pointed at the stand-in model, stream frames, and
// deployment vars set for one test file (the worker under test reads the same env object).
import { forgetConfig } from "../../src/config";
import { env } from "cloudflare:workers";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, flowDataOf, pointAtStandin, standinUrl } from "../engine/helpers";
import { json } from "../helpers";

/** An openAIApi credential holding `key`; answers its id. */
export async function openAICredential(key: string): Promise<string> {
  return (
    await json("POST", "/credentials", { body: { name: "openai", credentialName: "openAIApi", plainDataObj: { openAIApiKey: key } } })
  ).id;
}

/**
 * The llm-chain template (Flowise's marketplace export) with its prompt replaced by `template`
 * ({product} is the question) and its model (azureChatOpenAI, or `model`) at the stand-in with the
 * credential; answers the id.
 */
export async function saveChain(
  options: { template?: string; credential?: string; base?: string; model?: string; extra?: Record<string, unknown> } = {},
): Promise<string> {
  const flowData = flowDataOf(llmChain as unknown as Fixture, (nodes) => {
    for (const node of nodes.values()) {
      if (node.data.category !== "Chat Models") continue;
      if (options.model) node.data.name = options.model; // the fixture's azureChatOpenAI, or another OpenAI-compatible node
      pointAtStandin(node, options.credential, options.base);
    }
    const prompt = nodes.get("promptTemplate_0")!;
    prompt.data.inputs = { ...prompt.data.inputs, template: options.template ?? "{product}" };
  });
  return (await json("POST", "/chatflows", { body: { name: "security", flowData, ...options.extra } })).id;
}

/** Requests the stand-in received whose body contains `marker`. */
export async function standinRequests(marker: string): Promise<Array<{ headers: Record<string, string | null>; body: any }>> {
  return (await fetch(`${standinUrl()}/requests?contains=${encodeURIComponent(marker)}`)).json();
}

/** The `{event, data}` frames of an event stream, read to its end. */
export async function framesOf(res: Response): Promise<Array<{ event: string; data: any }>> {
  const text = await res.text();
  return text
    .split("\n\n")
    .map((block) => block.split("\n").find((l) => l.startsWith("data:")))
    .filter((l): l is string => !!l)
    .map((l) => JSON.parse(l.slice(5)));
}

/** Sets deployment vars on the worker's env; answers a function that puts the old values back. */
export function setVars(values: Record<string, string>): () => void {
  const target = env as unknown as Record<string, unknown>;
  const before = Object.fromEntries(Object.keys(values).map((k) => [k, target[k]]));
  Object.assign(target, values);
  forgetConfig(target); // the worker parsed its vars once (src/config.ts)
  return () => {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete target[k];
      else target[k] = v;
    }
    forgetConfig(target);
  };
}
