// The memory port a run reads through: the named session's messages from the run's look-ups when
// they came with them (lookups.ts), else D1 as usual; and whether the run read memory at all, kept
// per flow so the next run's look-ups read it only for flows that do.
import type { Runtime } from "../../engine";
import { type SessionMemory, noteReadsMemory } from "./lookups";

export interface RunMemory {
  runtime: Runtime;
  /** Notes, for this flow's next runs, whether this one read its memory. */
  note(): void;
}

export function runMemory(runtime: Runtime, flowId: string, session: SessionMemory | undefined): RunMemory {
  let read = false;
  const memory: Runtime["memory"] = {
    load: (chatflowid, sessionId, limit) => {
      read = true;
      if (!session || chatflowid !== flowId || sessionId !== session.id) return runtime.memory.load(chatflowid, sessionId, limit);
      return Promise.resolve(limit ? session.history.slice(-limit) : session.history.slice());
    },
  };
  return { runtime: { ...runtime, memory }, note: () => noteReadsMemory(flowId, read) };
}
