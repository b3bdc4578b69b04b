// The router chains (Flowise's deprecating Multi Prompt Chain and Multi Retrieval QA Chain): the
// chat model first picks a destination with LangChain's router prompt — the candidates' names and
// descriptions, the question; its answer is a fenced JSON {destination, next_inputs} — then the
// destination answers next_inputs (streamed when the flow streams):
//   multiPromptChain       promptRetriever nodes: the chosen one's systemMessage is the template
//                          ({input} takes next_inputs.input), sent as the user message
//   multiRetrievalQAChain  vectorStoreRetriever nodes: the Retrieval QA Chain over the chosen
//                          store answers next_inputs.query (returnSourceDocuments as it says)
// "DEFAULT" (or no destination) answers as LangChain's default conversation prompt; a destination
// that is not a candidate, or a router answer that does not parse, is a 502 naming what came back.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage } from "@langchain/core/messages";
import type { BaseRetrieverInterface } from "@langchain/core/retrievers";
import { fail } from "../../../errors";
import { asList, bool, isObject } from "../../core/inputs";
import { callModel } from "../../core/llm";
import type { RunContext } from "../../core/ports";
import type { RunResult, StreamSink } from "../../core/types";
import { type ModerationInstance, moderate, moderationsOf, requireChatModel } from "../instances";
import type { NodeDefinition } from "../types";
import { chainCanStream } from "./chains";
import { retrievalQa } from "./vector-db-qa";

type Answer = Omit<RunResult, "memoryType">;

const ROUTER_INTRO = {
  prompt:
    "Given a raw text input to a language model, select the model prompt best suited for the input. You will be given the " +
    "names of the available prompts and a description of what the prompt is best suited for. You may also revise the " +
    "original input if you think that revising it will ultimately lead to a better response from the language model.",
  retrieval:
    "Given a query to a question answering system, select the system best suited for the input. You will be given the " +
    "names of the available systems and a description of what questions the system is best suited for. You may also " +
    "revise the original input if you think that revising it will ultimately lead to a better response.",
};

/** LangChain's STRUCTURED_MULTI_*_ROUTER_TEMPLATE with its RouterOutputParser's format instructions, as sent. */
export function routerPrompt(kind: "prompt" | "retrieval", destinations: string, input: string): string {
  const key = kind === "prompt" ? "input" : "query";
  return `${ROUTER_INTRO[kind]}

<< FORMATTING >>
Return a markdown code snippet with a JSON object formatted to look like:
\`\`\`json
{
  "destination": string // name of the question answering system to use or "DEFAULT" (optional)
  "next_inputs": {
    "${key}": string // a potentially modified version of the original input
  } // input to be fed to the next model
}
\`\`\`

REMEMBER: "destination" MUST be one of the candidate prompt names specified below OR it can be "DEFAULT" if the input is not \
well suited for any of the candidate prompts.
REMEMBER: "next_inputs.${key}" can just be the original input if you don't think any modifications are needed.

<< CANDIDATE PROMPTS >>
${destinations}

<< INPUT >>
${input}

<< OUTPUT >>
`;
}

/** LangChain's ConversationChain prompt (no history: the router chain's default keeps none). */
const defaultConversation = (input: string) =>
  "The following is a friendly conversation between a human and an AI. The AI is talkative and provides lots of specific " +
  "details from its context. If the AI does not know the answer to a question, it truthfully says it does not know.\n\n" +
  `Current conversation:\n\nHuman: ${input}\nAI:`;

/** The router's answer: a ```json block (or the whole text) holding {destination?, next_inputs: {key}}. */
function parseRoute(text: string, key: string): { destination?: string; next: string } {
  const fencedBlock = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse((fencedBlock ? fencedBlock[1] : text).trim());
  } catch {
    parsed = undefined;
  }
  const next = isObject(parsed) && isObject(parsed.next_inputs) ? parsed.next_inputs[key] : undefined;
  const destination = isObject(parsed) ? parsed.destination : undefined;
  if (typeof next !== "string" || (destination !== undefined && destination !== null && typeof destination !== "string"))
    throw fail("UPSTREAM_FAILED", `The router's answer did not parse (destination, next_inputs.${key}): ${text.slice(0, 500)}`);
  return { destination: typeof destination === "string" && destination.toLowerCase() !== "default" ? destination : undefined, next };
}

interface Route<T> {
  name: string;
  description: string;
  target: T;
}

interface RouterInstance<T> {
  kind: string;
  label: string;
  model: BaseChatModel;
  routes: Route<T>[];
  moderations: ModerationInstance[];
}

/** Moderation, the router's pick, then the destination (or the default conversation) answers. */
async function routed<T>(
  chain: RouterInstance<T>,
  kind: "prompt" | "retrieval",
  ctx: RunContext,
  sink: StreamSink | undefined,
  answer: (target: T, next: string) => Promise<Answer>,
): Promise<Answer> {
  const checked = await moderate(ctx.question, chain.moderations);
  if ("refusal" in checked) {
    sink?.token(checked.refusal);
    return { text: checked.refusal };
  }
  const key = kind === "prompt" ? "input" : "query";
  const destinations = chain.routes.map((r) => `${r.name}: ${r.description}`).join("\n");
  const reply = await callModel(chain.model, [new HumanMessage(routerPrompt(kind, destinations, checked.question))], ctx);
  const { destination, next } = parseRoute(reply, key);
  if (destination === undefined) return { text: await callModel(chain.model, [new HumanMessage(defaultConversation(next))], ctx, sink) };
  const route = chain.routes.find((r) => r.name === destination);
  if (!route)
    throw fail(
      "UPSTREAM_FAILED",
      `${chain.label}: Destination ${destination} not found in destination chains with keys ${chain.routes.map((r) => r.name).join(",")}`,
    );
  return answer(route.target, next);
}

const named = (v: unknown): v is { name: string; description: string } =>
  isObject(v) && typeof v.name === "string" && typeof v.description === "string";

const multiPromptChain: NodeDefinition = {
  name: "multiPromptChain",
  category: "Chains",
  async build({ node, inputs }): Promise<RouterInstance<string>> {
    const label = node.data.label;
    const prompts = asList(inputs.promptRetriever).filter((p) => isObject(p) && p.kind === "promptRetriever");
    if (!prompts.length) throw fail("INVALID_FLOW", `${label} needs Prompt Retriever nodes connected to its promptRetriever input`);
    const routes = prompts.filter(named).map((p) => ({
      name: p.name,
      description: p.description,
      target: String((p as { systemMessage?: unknown }).systemMessage ?? ""),
    }));
    return {
      kind: "multiPromptChain",
      label,
      model: requireChatModel(inputs.model, label),
      routes,
      moderations: moderationsOf(inputs.inputModeration),
    };
  },
  async run(instance, { ctx, sink }) {
    const chain = instance as RouterInstance<string>;
    return routed(chain, "prompt", ctx, sink, async (template, next) => {
      // LangChain's PromptTemplate over the system message: {input} is the only variable.
      const text = template.replace(/\{\{|\}\}|\{input\}/g, (m) => (m === "{input}" ? next : m[0]));
      return { text: await callModel(chain.model, [new HumanMessage(text)], ctx, sink) };
    });
  },
  canStream: chainCanStream,
};

interface RetrievalRoutes extends RouterInstance<BaseRetrieverInterface> {
  returnSourceDocuments: boolean;
}

const isRetriever = (v: unknown): v is BaseRetrieverInterface => isObject(v) && typeof (v as { invoke?: unknown }).invoke === "function";

const multiRetrievalQAChain: NodeDefinition = {
  name: "multiRetrievalQAChain",
  category: "Chains",
  async build({ node, inputs }): Promise<RetrievalRoutes> {
    const label = node.data.label;
    const stores = asList(inputs.vectorStoreRetriever).filter((r) => named(r) && isRetriever(r));
    if (!stores.length)
      throw fail("INVALID_FLOW", `${label} needs Vector Store Retriever nodes connected to its vectorStoreRetriever input`);
    const routes = stores.map((r) => ({
      name: (r as { name: string }).name,
      description: (r as { description: string }).description,
      target: r,
    }));
    return {
      kind: "multiRetrievalQAChain",
      label,
      model: requireChatModel(inputs.model, label),
      routes,
      moderations: moderationsOf(inputs.inputModeration),
      returnSourceDocuments: bool(inputs.returnSourceDocuments),
    };
  },
  async run(instance, { ctx, sink }) {
    const chain = instance as RetrievalRoutes;
    return routed(chain, "retrieval", ctx, sink, async (retriever, next) => {
      const qa = retrievalQa();
      const inputs = { model: chain.model, vectorStoreRetriever: retriever, returnSourceDocuments: chain.returnSourceDocuments };
      const built = await qa.build({ node: { id: chain.kind, data: { label: chain.label } } as never, inputs, ctx });
      return qa.run!(built, { ctx: { ...ctx, question: next }, sink });
    });
  },
  canStream: chainCanStream,
};

export const routerChainNodes: NodeDefinition[] = [multiPromptChain, multiRetrievalQAChain];
