// Scheduled agentflows as Flowise 3.1 saves them (a Start node with startInputType
// "scheduleInput"), and the Cron Trigger fired by hand: the local route wrangler offers
// (`GET /cdn-cgi/handler/scheduled?cron=…&time=<unix seconds>`), answered by the worker with its tick's report.
import { exports } from "cloudflare:workers";
import { afEdge, afNode, directReply, saveAgentflowOf } from "../agentflow-api/flows";
import { json } from "../helpers";

type Inputs = Record<string, unknown>;

export const scheduleStart = (inputs: Inputs = {}) =>
  afNode("startAgentflow_0", "Start", {
    startInputType: "scheduleInput",
    scheduleType: "cronExpression",
    scheduleCronExpression: "*/5 * * * *",
    scheduleInputMode: "text",
    scheduleDefaultInput: "daily report",
    ...inputs,
  });

export const scheduleFlowData = (inputs: Inputs = {}, reply = "ran: {{ question }}") => ({
  nodes: [scheduleStart(inputs), directReply("directReplyAgentflow_0", reply)],
  edges: [afEdge("startAgentflow_0", "directReplyAgentflow_0")],
});

/** Start (schedule) → Direct Reply; answers the saved record (its `warning` too). */
export async function saveScheduleFlow(inputs: Inputs = {}, reply?: string): Promise<{ id: string; warning?: string }> {
  const { nodes, edges } = scheduleFlowData(inputs, reply);
  return saveAgentflowOf(nodes, edges);
}

export const statusOf = (id: string) => json("GET", `/chatflows/${id}/schedule/status`);

export interface TickReport {
  outcome: string;
  due: number;
  claimed: number;
  started: number;
  failed: number;
}

/** One Cron Trigger tick at `ms` (sent as unix seconds, as wrangler's route takes it). */
export async function tick(ms: number): Promise<TickReport> {
  const url = `http://edgeflow.test/cdn-cgi/handler/scheduled?cron=*+*+*+*+*&time=${Math.floor(ms / 1000)}`;
  const res = await (exports as unknown as { default: Fetcher }).default.fetch(url);
  if (res.status !== 200) throw new Error(`tick: ${res.status} ${await res.text()}`);
  return res.json();
}

export const logsOf = async (id: string, query = ""): Promise<any> => json("GET", `/chatflows/${id}/schedule/trigger-logs${query}`);
