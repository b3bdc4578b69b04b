// A RunContext from a Runtime and what the caller knows of the run; the rest gets its defaults.
import type { RunContext, Runtime } from "./ports";

export type RunInit = Pick<RunContext, "chatflowid"> & Partial<Omit<RunContext, "runtime" | "chatflowid" | "loadMemory">>;

export function createRunContext(runtime: Runtime, init: RunInit): RunContext {
  const chatId = init.chatId ?? init.sessionId ?? crypto.randomUUID();
  const sessionId = init.sessionId ?? chatId;
  const history = init.history ?? [];
  return {
    question: "",
    nodeOverrides: {},
    vars: {},
    signal: new AbortController().signal,
    getCredential: runtime.credentials,
    ...init,
    runtime,
    chatId,
    sessionId,
    history,
    async loadMemory(limit) {
      const stored = await runtime.memory.load(init.chatflowid, sessionId, limit);
      const turns = [...history, ...stored];
      return limit ? turns.slice(-limit) : turns;
    },
  };
}
