// What a V1 run answers besides its text, read from the executed data: Flowise's agentReasoning
// (one entry per agent step, in run order), the used tools and source documents of every step,
// the approval `action`; and the V1 stream: the executor's V2 frames become `start` (once),
// `agentReasoning` (the whole list so far, after each step) and `nextAgent` (who acts next) frames.
import type { SourceDocument, UsedTool } from "../core/types";
import type { AgentflowEvents, ExecutedData } from "../agentflow/types";
import { isObject } from "../agentflow/util";
import type { AgentReasoning, V1Action } from "./types";

const DONE = new Set(["FINISHED", "STOPPED"]);

/** Entries a resumed request did not run itself (they were stored before the pause) are left out. */
export class ReasoningReader {
  private readonly earlier: Set<string>;

  constructor(before: ExecutedData[] = []) {
    this.earlier = new Set(before.filter((e) => e.status !== "STOPPED").map((e) => JSON.stringify(e)));
  }

  entries(data: ExecutedData[]): AgentReasoning[] {
    return data
      .filter((e) => DONE.has(e.status) && (!this.earlier.size || !this.earlier.has(JSON.stringify(e))))
      .flatMap((e) => (Array.isArray(e.data?.output?.agentReasoning) ? (e.data.output.agentReasoning as AgentReasoning[]) : []));
  }
}

/** Each item once, in order (a tool called twice with the same input and output counts once, as Flowise's uniq). */
function distinct<T>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((x) => {
    const key = JSON.stringify(x);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export const usedToolsOf = (reasoning: AgentReasoning[]): UsedTool[] => distinct(reasoning.flatMap((r) => r.usedTools ?? []));
export const sourceDocumentsOf = (reasoning: AgentReasoning[]): SourceDocument[] =>
  distinct(reasoning.flatMap((r) => r.sourceDocuments ?? []));

/** The V1 action of a paused run (the paused node leaves `v1Action` in its output). */
export function actionOf(data: ExecutedData[], id: string): V1Action | undefined {
  const paused = [...data].reverse().find((e) => e.status === "STOPPED");
  const a = paused?.data?.output?.v1Action;
  if (!isObject(a)) return undefined;
  const approve = typeof a.approve === "string" && a.approve ? a.approve : "Yes";
  const reject = typeof a.reject === "string" && a.reject ? a.reject : "No";
  return {
    id,
    mapping: { approve, reject, toolCalls: Array.isArray(a.toolCalls) ? a.toolCalls : [] },
    elements: [
      { type: "approve-button", label: approve },
      { type: "reject-button", label: reject },
    ],
  };
}

/** The executor's events as Flowise's V1 frames (the closing token/action/tools frames are the runner's). */
export function v1Events(sink: AgentflowEvents, reader: ReasoningReader, labels: Map<string, string>): AgentflowEvents {
  let sent = 0;
  return {
    hold: sink.hold ? () => sink.hold!() : undefined,
    event(name, data) {
      if (name !== "agentFlowExecutedData" || !Array.isArray(data)) return;
      const all = reader.entries(data as ExecutedData[]);
      if (all.length <= sent) return;
      const fresh = all.slice(sent);
      // Flowise opens a V1 stream with `start` (the steps so far), once.
      if (!sent) sink.event("start", all);
      sent = all.length;
      sink.event("agentReasoning", all);
      for (const r of fresh) if (r.next && r.next !== "FINISH" && r.next !== "END") sink.event("nextAgent", labels.get(r.next) ?? r.next);
    },
  };
}
