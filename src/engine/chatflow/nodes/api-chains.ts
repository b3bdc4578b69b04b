// Flowise's API chains (LangChain's APIChain and createOpenAPIChain), ending nodes of a chatflow:
// - getApiChain: the model writes the URL to call from the API documentation (urlPrompt), the URL is
//   fetched (GET, the node's headers), and the model answers from the response (ansPrompt);
// - postApiChain: the same, the model writing {"url", "data"} and the data POSTed as JSON;
// - openApiChain: an OpenAPI spec (yamlLink, else yamlFile) as tools (openAPIToolkit's reading and
//   requests), the model calls one ("Use the provided API's to respond to this user query"), and the
//   API's answer is the chain's answer, as LangChain's chain gives it.
// Every URL the model writes is under the outbound policy's request rule, and the GET/POST chains
// call only hosts their API documentation names (LangChain JS checks neither; Python's APIChain has
// limit_to_domains): a URL elsewhere is a 400 before anything is sent.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type AIMessage, HumanMessage } from "@langchain/core/messages";
import { PromptTemplate } from "@langchain/core/prompts";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { fail } from "../../../errors";
import { errorMessage } from "../../../lib/error-message";
import { assertOutboundAllowed } from "../../../lib/outbound";
import { headerSecrets } from "../../../lib/redact";
import { callModel } from "../../core/llm";
import { jsonObject, str } from "../../core/inputs";
import { modelFailure } from "../../core/errors";
import type { RunContext } from "../../core/ports";
import type { RunResult, StreamSink } from "../../core/types";
import { openApiToolkit } from "../../tools/openapi/toolkit";
import { parseSpec, specText } from "../../tools/openapi/spec";
import { ToolCallError, callService } from "../../tools/service";
import { type ModerationInstance, moderate, moderationsOf, requireChatModel } from "../instances";
import type { NodeDefinition } from "../types";
import { chainCanStream } from "./chains";

const CATEGORY = "Chains";

const SHORT =
  "in order to get a response that is as short as possible, while still getting the necessary information to answer the question. " +
  "Pay attention to deliberately exclude any unnecessary pieces of data in the API call.";
export const GET_URL_PROMPT = `You are given the below API Documentation:
{api_docs}
Using this documentation, generate the full API url to call for answering the user question.
You should build the API url ${SHORT}

Question:{question}
API url:`;
export const GET_ANSWER_PROMPT = "Given this {api_response} response for {api_url}. use the given response to answer this {question}";
export const POST_URL_PROMPT = `You are given the below API Documentation:
{api_docs}
Using this documentation, generate a json string with two keys: "url" and "data".
The value of "url" should be a string, which is the API url to call for answering the user question.
The value of "data" should be a dictionary of key-value pairs you want to POST to the url as a JSON body.
Be careful to always use double quotes for strings in the json string.
You should build the json string ${SHORT}

Question:{question}
json string:`;
export const POST_ANSWER_PROMPT = `${POST_URL_PROMPT} {api_url_body}

Here is the response from the API:

{api_response}

Summarize this response to answer the original question.

Summary:`;
const OPENAPI_PROMPT = "Use the provided API's to respond to this user query:\n\n";

type Answer = Omit<RunResult, "memoryType">;

interface ApiChainInstance {
  kind: "apiChain";
  method: "GET" | "POST";
  label: string;
  model: BaseChatModel;
  docs: string;
  /** The origins the documentation names: the only ones the chain calls. */
  origins: string[];
  headers: Record<string, string>;
  urlPrompt: PromptTemplate;
  answerPrompt: PromptTemplate;
}

interface OpenApiChainInstance {
  kind: "openApiChain";
  label: string;
  model: BaseChatModel;
  tools: StructuredToolInterface[];
  moderations: ModerationInstance[];
}

function template(text: string, label: string, input: string): PromptTemplate {
  try {
    return PromptTemplate.fromTemplate(text);
  } catch (err) {
    throw fail("INVALID_FLOW", `${label}: ${input} cannot be parsed (${errorMessage(err)}); write literal braces as {{ and }}`);
  }
}

async function format(prompt: PromptTemplate, values: Record<string, string>, label: string): Promise<string> {
  try {
    return await prompt.format(values);
  } catch (err) {
    throw fail("INVALID_FLOW", `${label}: its prompt has a variable the chain does not fill (${errorMessage(err)})`);
  }
}

function headersOf(value: unknown, label: string): Record<string, string> {
  if (value === undefined || value === null || value === "") return {};
  const parsed = jsonObject(value);
  if (!parsed) throw fail("INVALID_FLOW", `${label}: headers must be a JSON object`);
  return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
}

/** The origins of the absolute http(s) URLs the API documentation names. */
function originsOf(docs: string): string[] {
  const origins = new Set<string>();
  for (const m of docs.matchAll(/https?:\/\/[^\s"'<>()`]+/g)) {
    try {
      origins.add(new URL(m[0]).origin);
    } catch {
      // not a URL after all
    }
  }
  return [...origins];
}

/** The URL the model wrote, when the docs name its origin and the outbound policy allows it; else a 400. */
function checkedUrl(chain: ApiChainInstance, written: string, ctx: RunContext): string {
  const text = written
    .trim()
    .replace(/^`+|`+$/g, "")
    .trim();
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
    throw fail("MODEL_FAILED", `${chain.label}: the model did not write a URL to call (it wrote: ${text.slice(0, 200)})`);
  assertOutboundAllowed(url, ctx.runtime.outbound);
  if (!chain.origins.includes(url.origin))
    throw fail(
      "OUTBOUND_REFUSED",
      `${chain.label}: the model asked for ${url.origin}, which the API documentation does not name ` +
        `(${chain.origins.join(", ") || "it names no URL: write the API's base URL in it"})`,
    );
  return url.toString();
}

/** The model's {"url", "data"} (a fenced block too); 502 when it wrote something else. */
function urlAndBody(chain: ApiChainInstance, written: string): { url: string; data: unknown } {
  const text = written.trim().replace(/^```(?:json)?\s*|\s*```$/g, "");
  try {
    const parsed = JSON.parse(text) as { url?: unknown; data?: unknown };
    if (typeof parsed.url === "string") return { url: parsed.url, data: parsed.data };
  } catch {
    // said below
  }
  throw fail("MODEL_FAILED", `${chain.label}: the model did not write the JSON {"url", "data"} to POST (it wrote: ${text.slice(0, 200)})`);
}

async function ask(model: BaseChatModel, text: string, ctx: RunContext, sink?: StreamSink): Promise<string> {
  return callModel(model, [new HumanMessage(text)], ctx, sink);
}

async function runApiChain(chain: ApiChainInstance, ctx: RunContext, sink?: StreamSink): Promise<Answer> {
  const question = ctx.question;
  const written = await ask(chain.model, await format(chain.urlPrompt, { api_docs: chain.docs, question }, chain.label), ctx);
  const post = chain.method === "POST" ? urlAndBody(chain, written) : undefined;
  const url = checkedUrl(chain, post ? post.url : written, ctx);
  const init: RequestInit = post
    ? { method: "POST", headers: { "Content-Type": "application/json", ...chain.headers }, body: JSON.stringify(post.data ?? {}) }
    : { method: "GET", headers: chain.headers };
  const secrets = headerSecrets(chain.headers);
  let response: string;
  try {
    response = (await callService({ service: chain.label, url, init, secrets, policy: ctx.runtime.outbound }, ctx)).text;
  } catch (err) {
    if (err instanceof ToolCallError) throw fail("UPSTREAM_FAILED", `${chain.label}: ${err.message}`);
    throw err;
  }
  const values: Record<string, string> = { api_docs: chain.docs, question, api_response: response };
  values[post ? "api_url_body" : "api_url"] = written;
  return { text: await ask(chain.model, await format(chain.answerPrompt, values, chain.label), ctx, sink) };
}

async function runOpenApiChain(chain: OpenApiChainInstance, ctx: RunContext, sink?: StreamSink): Promise<Answer> {
  const checked = await moderate(ctx.question, chain.moderations);
  if ("refusal" in checked) {
    sink?.token(checked.refusal);
    return { text: checked.refusal };
  }
  let reply: AIMessage;
  try {
    if (typeof chain.model.bindTools !== "function") throw fail("INVALID_FLOW", `${chain.label}: its chat model cannot call functions`);
    reply = (await chain.model.bindTools(chain.tools).invoke([new HumanMessage(`${OPENAPI_PROMPT}${checked.question}`)], {
      signal: ctx.signal,
    })) as AIMessage;
  } catch (err) {
    throw modelFailure(err, ctx);
  }
  const call = reply.tool_calls?.[0];
  let text: string;
  if (!call) text = typeof reply.content === "string" ? reply.content : JSON.stringify(reply.content);
  else {
    const tool = chain.tools.find((t) => t.name === call.name);
    if (!tool) throw fail("MODEL_FAILED", `${chain.label}: the model called ${call.name}, which the OpenAPI spec does not have`);
    try {
      text = String(await tool.invoke(call.args));
    } catch (err) {
      if (!(err instanceof ToolCallError)) throw err;
      text = err.message;
    }
  }
  sink?.token(text);
  return { text };
}

/** The spec's text: yamlLink (fetched under the outbound policy) wins over yamlFile, as in Flowise. */
async function specOf(inputs: Record<string, unknown>, ctx: RunContext, label: string): Promise<string> {
  const link = str(inputs.yamlLink);
  if (!link) return specText(inputs.yamlFile, label);
  assertOutboundAllowed(link, ctx.runtime.outbound);
  const res = await callService({ service: `${label}'s YAML link`, url: link, policy: ctx.runtime.outbound }, ctx).catch((err: unknown) => {
    throw fail("UPSTREAM_FAILED", `${label}: ${errorMessage(err)}`);
  });
  if (!res.ok) throw fail("UPSTREAM_FAILED", `${label}: its YAML link answered ${res.status}`);
  return res.text;
}

function apiChainNode(name: string, method: "GET" | "POST", urlDefault: string, answerDefault: string): NodeDefinition {
  return {
    name,
    category: CATEGORY,
    async build({ node, inputs }): Promise<ApiChainInstance> {
      const label = node.data.label;
      const docs = str(inputs.apiDocs);
      if (!docs) throw fail("INVALID_FLOW", `${label} needs its API Documentation (apiDocs), naming the API's base URL`);
      return {
        kind: "apiChain",
        method,
        label,
        model: requireChatModel(inputs.model, label),
        docs,
        origins: originsOf(docs),
        headers: headersOf(inputs.headers, label),
        urlPrompt: template(str(inputs.urlPrompt) ?? urlDefault, label, "urlPrompt"),
        answerPrompt: template(str(inputs.ansPrompt) ?? answerDefault, label, "ansPrompt"),
      };
    },
    async run(instance, { ctx, sink }) {
      const chain = instance as ApiChainInstance;
      if (chain?.kind !== "apiChain") throw fail("INVALID_FLOW", `${name} was not built`);
      return runApiChain(chain, ctx, sink);
    },
    canStream: chainCanStream,
  };
}

export const apiChainNodes: NodeDefinition[] = [
  apiChainNode("getApiChain", "GET", GET_URL_PROMPT, GET_ANSWER_PROMPT),
  apiChainNode("postApiChain", "POST", POST_URL_PROMPT, POST_ANSWER_PROMPT),
  {
    name: "openApiChain",
    category: CATEGORY,
    async build({ node, inputs, ctx }): Promise<OpenApiChainInstance> {
      const label = node.data.label;
      const model = requireChatModel(inputs.model, label);
      const text = await specOf(inputs, ctx, label);
      const server = parseSpec(text, label).server;
      if (server && /^https?:\/\//i.test(server)) assertOutboundAllowed(server, ctx.runtime.outbound);
      const headers = headersOf(inputs.headers, label);
      const tools = await openApiToolkit({ inputType: "file", openApiFile: text, headers }, { ctx, label });
      if (!tools.length) throw fail("INVALID_FLOW", `${label}: its OpenAPI spec has no operations`);
      return { kind: "openApiChain", label, model, tools, moderations: moderationsOf(inputs.inputModeration) };
    },
    async run(instance, { ctx, sink }) {
      const chain = instance as OpenApiChainInstance;
      if (chain?.kind !== "openApiChain") throw fail("INVALID_FLOW", "OpenAPI Chain was not built");
      return runOpenApiChain(chain, ctx, sink);
    },
  },
];
