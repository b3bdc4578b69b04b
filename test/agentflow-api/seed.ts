// Rows written straight into D1, for tests of what the API does with executions it did not run
// itself (a crashed isolate's INPROGRESS row, dates in the past).
import { env } from "cloudflare:workers";
import { json } from "../helpers";

export interface SeedExecution {
  id?: string;
  agentflowId: string;
  sessionId?: string;
  state?: string;
  executionData?: unknown[];
  isPublic?: boolean;
  createdDate?: string;
  updatedDate?: string;
  action?: string | null;
}

export async function seedExecution(row: SeedExecution): Promise<string> {
  const id = row.id ?? crypto.randomUUID();
  const created = row.createdDate ?? new Date().toISOString();
  await env.DB.prepare(
    "INSERT INTO execution (id, executionData, state, agentflowId, sessionId, action, isPublic, createdDate, updatedDate, stoppedDate) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  )
    .bind(
      id,
      JSON.stringify(row.executionData ?? []),
      row.state ?? "FINISHED",
      row.agentflowId,
      row.sessionId ?? "s-1",
      row.action ?? null,
      row.isPublic ? 1 : 0,
      created,
      row.updatedDate ?? created,
      row.state === "STOPPED" ? created : null,
    )
    .run();
  return id;
}

/** A saved agentflow (its graph is not run by these tests). */
export async function saveAgentflow(name = "agentflow", flowData = '{"nodes":[],"edges":[]}'): Promise<string> {
  return (await json("POST", "/chatflows", { body: { name, flowData, type: "AGENTFLOW" } })).id;
}
