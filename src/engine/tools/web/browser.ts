// webBrowser: LangChain's WebBrowser tool. The model gives "URL, what to find" (an empty task asks
// for a summary); the page is fetched under the outbound policy and read as LangChain reads it
// (every element's own text, links as [text](url), no script/style/svg; a summary reads only the
// body), split into 2000-character chunks (200 overlap); for a task, the 4 chunks nearest it by the
// connected embeddings (cosine, as MemoryVectorStore), for a summary the first 4; the connected
// chat model then writes what was asked, with up to 5 relevant links.
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage } from "@langchain/core/messages";
import { RecursiveCharacterTextSplitter } from "@langchain/textsplitters";
import { fail } from "../../../errors";
import { callModel } from "../../core/llm";
import { ToolCallError, callService } from "../service";
import type { ToolDeps } from "../types";
import { queryTool } from "../search/query-tool";
import { pageText } from "./page-text";

const DESCRIPTION =
  'useful for when you need to find something on or summarize a webpage. input should be a comma separated list of "ONE ' +
  'valid http URL including protocol","what you want to find on the page or empty string for a summary".';
const ALLOWED_TYPES = ["text/html", "application/json", "application/xml", "application/javascript", "text/plain"];
const HEADERS = {
  Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
  "Accept-Language": "en-US,en;q=0.5",
  "User-Agent": "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/111.0",
};

/** LangChain's parseInputs: the first two comma-separated parts, quotes and a trailing slash trimmed. */
export function parseBrowserInput(input: string): [string, string] {
  const [url = "", task = ""] = input.split(",").map((part) => {
    let t = part.trim();
    if (t.startsWith('"')) t = t.slice(1);
    if (t.endsWith('"')) t = t.slice(0, -1);
    if (t.endsWith("/")) t = t.slice(0, -1);
    return t.trim();
  });
  return [url, task];
}

const isChatModel = (v: unknown): v is BaseChatModel =>
  !!v && typeof v === "object" && typeof (v as BaseChatModel).invoke === "function" && typeof (v as BaseChatModel).stream === "function";

const isEmbeddings = (v: unknown): v is EmbeddingsInterface =>
  !!v && typeof v === "object" && typeof (v as EmbeddingsInterface).embedDocuments === "function";

const cosine = (a: number[], b: number[]) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * (b[i] ?? 0);
    na += a[i] * a[i];
    nb += (b[i] ?? 0) * (b[i] ?? 0);
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
};

async function nearest(texts: string[], task: string, embeddings: EmbeddingsInterface): Promise<string[]> {
  const [vectors, query] = await Promise.all([embeddings.embedDocuments(texts), embeddings.embedQuery(task)]);
  return texts
    .map((text, i) => ({ text, score: cosine(vectors[i], query) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, 4)
    .map((r) => r.text);
}

export async function webBrowserTool(inputs: Record<string, unknown>, { ctx, label }: ToolDeps) {
  const model = inputs.model;
  const embeddings = inputs.embeddings;
  if (!isChatModel(model)) throw fail("INVALID_FLOW", `${label} needs a chat model connected to its model input`);
  if (!isEmbeddings(embeddings)) throw fail("INVALID_FLOW", `${label} needs embeddings connected to its embeddings input`);
  return queryTool({
    name: "web-browser",
    description: DESCRIPTION,
    argument: "a URL and what to find on the page, comma separated",
    inputs,
    run: async (input) => {
      const [url, task] = parseBrowserInput(input);
      const summary = !task;
      let text: string;
      try {
        const res = await callService({ service: url, url, init: { headers: HEADERS }, policy: ctx.runtime.outbound }, ctx);
        if (!res.ok) return `Error: http response ${res.status}`;
        const type = res.contentType.split(";")[0].trim();
        if (type && !ALLOWED_TYPES.includes(type)) return "Error: returned page was not utf8";
        text = await pageText(res.text, url, summary);
      } catch (err) {
        if (err instanceof ToolCallError) return `Error: ${err.message}`;
        throw err;
      }
      const texts = await new RecursiveCharacterTextSplitter({ chunkSize: 2000, chunkOverlap: 200 }).splitText(text);
      const context = summary ? texts.slice(0, 4).join("\n") : (await nearest(texts, task, embeddings)).join("\n\n");
      const ask =
        `Text:${context}\n\nI need ${summary ? "a summary" : task} from the above text, also provide up to 5 markdown links ` +
        "from within that would be of interest (always including URL and text). Links should be provided, if present, in " +
        'markdown syntax as a list under the heading "Relevant Links:".';
      return callModel(model, [new HumanMessage(ask)], ctx);
    },
  });
}
