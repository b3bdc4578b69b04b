// Memories kept in a service, as Flowise's nodes (like the Redis ones, they write the exchange after a
// successful run; the request's history comes first, as Flowise prepends it):
//   ZepMemoryCloud  Zep Cloud (providers/vectorstores/zep/client.ts): GET sessions/{id}/memory?memoryType
//                   read as LangChain's ZepCloudMemory condenses it — one user message holding the facts,
//                   the summary and "role: content" lines; the exchange POSTed with role_type user /
//                   assistant. Inputs sessionId (default: the run's), memoryType (perpetual), aiPrefix,
//                   humanPrefix, memoryKey; credential zepMemoryApi (apiKey), required.
//   ZepMemory       open-source Zep v1 at baseURL: GET …/memory?lastn=k, the summary as a system message
//                   then the messages (humanPrefix's as the user's, aiPrefix's as the assistant's);
//                   credential zepMemoryApi optional (a Bearer key).
//   mem0            mem0's platform API (providers/memory/mem0.ts): the memories relevant to the question
//                   (search), as one assistant message with mem0's preamble, before the session's last 10
//                   stored messages; the exchange added after the run unless searchOnly. user_id (or the
//                   session id with useFlowiseChatId), run_id, agent_id, app_id, project_id, org_id.
// A service failing is a 502 when reading and when writing (Flowise logs a failed write and goes on).
import { type BaseMessage, SystemMessage } from "@langchain/core/messages";
import { fail } from "../../../errors";
import { mem0Client } from "../../../providers/memory/mem0";
import { type ZepApi, type ZepMemory, addMemory, getMemory, zepApi } from "../../../providers/vectorstores/zep/client";
import { bool, credentialOf, num, str } from "../../core/inputs";
import type { ChatTurn } from "../../core/types";
import { type MemoryInstance, memoryInstance, turnsToMessages } from "../instances";
import type { BuildArgs, NodeDefinition } from "../types";

const CATEGORY = "Memory";

const MEM0_PREAMBLE =
  "These are the memories I have stored. Give more weightage to the question by users and try to answer that first. " +
  "You have to modify your answer based on the memories I have provided. If the memories are irrelevant you can ignore " +
  "them. Also don't reply to this section of the prompt, or the memories, they are only for your reference. " +
  "The MEMORIES of the USER are: \n\n";

async function zepOf({ node, inputs, ctx }: BuildArgs, cloud: boolean): Promise<ZepApi> {
  const baseURL = cloud ? undefined : (str(inputs.baseURL) ?? "http://127.0.0.1:8000");
  const label = node.data.label || node.data.name;
  const options = { env: ctx.runtime.providers, baseURL, label, signal: ctx.signal };
  if (baseURL) zepApi(options); // a refused baseURL is a 400 before the credential is read
  return zepApi({ ...options, apiKey: str((await credentialOf(node, inputs, ctx)).apiKey) });
}

/** Zep Cloud's memory as LangChain's ZepCloudMemory condenses it: facts, summary, then "role: content" lines. */
function condensed(memory: ZepMemory): string {
  const context = (memory.facts ?? []).join("\n") + (memory.summary?.content ?? "");
  const lines = (memory.messages ?? []).map((m) => `${m.role ?? m.role_type}: ${m.content}`).join("\n");
  return `${context}\n${lines}`;
}

function zepMemory(args: BuildArgs, api: ZepApi): MemoryInstance {
  const { node, inputs, ctx } = args;
  const sessionId = str(inputs.sessionId) ?? ctx.sessionId;
  const human = str(inputs.humanPrefix) ?? "human";
  const ai = str(inputs.aiPrefix) ?? "ai";
  let summary = "";
  const read = async (): Promise<ChatTurn[]> => {
    const k = num(inputs.k);
    const query = api.cloud
      ? { memoryType: str(inputs.memoryType) ?? "perpetual" }
      : { lastn: k === undefined ? undefined : String(Math.floor(k)) };
    const memory = await getMemory(api, sessionId, query);
    if (!memory) return ctx.history;
    if (api.cloud) {
      const text = condensed(memory);
      return [...ctx.history, ...(text.trim() ? [{ role: "userMessage", content: text } as const] : [])];
    }
    summary = memory.summary?.content ?? "";
    const turns = (memory.messages ?? [])
      .filter((m) => m.content)
      .map((m): ChatTurn => ({ role: m.role === ai ? "apiMessage" : "userMessage", content: String(m.content) }));
    return [...ctx.history, ...turns];
  };
  const save = (question: string, answer: string) =>
    addMemory(api, sessionId, [
      { role: human, ...(api.cloud ? { role_type: "user" } : {}), content: question },
      { role: ai, ...(api.cloud ? { role_type: "assistant" } : {}), content: answer },
    ]);
  const base = memoryInstance(node.data.label, str(inputs.memoryKey) ?? "chat_history", read, save);
  // The open-source server's summary leads, as a system message (LangChain's separateMessages).
  const messages = async (): Promise<BaseMessage[]> => {
    const turns = turnsToMessages(await base.load());
    return summary ? [new SystemMessage(summary), ...turns] : turns;
  };
  return { ...base, messages };
}

const mem0Memory: NodeDefinition = {
  name: "mem0",
  category: CATEGORY,
  async build({ node, inputs, ctx }) {
    const userId = bool(inputs.useFlowiseChatId) ? ctx.sessionId : str(inputs.user_id);
    if (!userId) throw fail("INVALID_FLOW", `${node.data.label} needs a User ID (user_id) when "Use Flowise Chat ID" is off`);
    const client = mem0Client({
      env: ctx.runtime.providers,
      apiKey: str((await credentialOf(node, inputs, ctx)).apiKey),
      signal: ctx.signal,
    });
    const ids = Object.fromEntries(["run_id", "agent_id", "app_id", "project_id", "org_id"].map((k) => [k, str(inputs[k])]));
    const options = { user_id: userId, ...ids, enable_graph: false, metadata: {}, filters: {} };
    const read = async (): Promise<ChatTurn[]> => {
      const [memories, stored] = await Promise.all([
        str(ctx.question) ? client.search(ctx.question, options) : Promise.resolve([]),
        ctx.loadMemory(10),
      ]);
      const text = memories.flatMap((m) => (m?.memory ? [m.memory] : [])).join("\n");
      return [{ role: "apiMessage", content: `${MEM0_PREAMBLE}\n${text}` }, ...stored];
    };
    const save = bool(inputs.searchOnly)
      ? undefined
      : (question: string, answer: string) =>
          client.add(
            [
              { role: "user", content: question },
              { role: "assistant", content: answer },
            ],
            options,
          );
    return memoryInstance(node.data.label, "history", read, save);
  },
};

export const zepMem0MemoryNodes: NodeDefinition[] = [
  { name: "ZepMemoryCloud", category: CATEGORY, build: async (args) => zepMemory(args, await zepOf(args, true)) },
  { name: "ZepMemory", category: CATEGORY, build: async (args) => zepMemory(args, await zepOf(args, false)) },
  mem0Memory,
];
