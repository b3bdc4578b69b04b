// Issue 28 item 7: what an asynchronous run keeps in R2 under executions/{id}/ (the webhook payload
// it was started with, its uploads, step results too large for the Workflow's state) goes when its
// execution is deleted — one, several at once, or with its flow — after the rows.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { afEdge, directReply, saveAgentflowOf } from "../agentflow-api/flows";
import { json, sleep } from "../helpers";
import { until } from "../reliability/helpers";
import { hook, webhookStart } from "../webhooks/helpers";

vi.setConfig({ testTimeout: 30_000 });

const filesOf = async (executionId: string) =>
  (await env.FILES.list({ prefix: `executions/${executionId}/` })).objects.map((o) => o.key).sort();

async function settled(executionId: string, ms = 20_000): Promise<any> {
  const deadline = Date.now() + ms;
  for (;;) {
    const row = await json("GET", `/executions/${executionId}`);
    if (row.state !== "INPROGRESS") return row;
    if (Date.now() > deadline) throw new Error(`execution ${executionId} still INPROGRESS after ${ms} ms`);
    await sleep(50);
  }
}

/** An async webhook flow (no callback); answers its id. */
async function asyncHookFlow(): Promise<string> {
  const start = webhookStart({ webhookResponseMode: "async", webhookDefaultInput: "order {{ $webhook.body.order }}" });
  return (
    await saveAgentflowOf([start, directReply("directReplyAgentflow_0", "done")], [afEdge("startAgentflow_0", "directReplyAgentflow_0")])
  ).id;
}

/** An async run of `flowId` that ended, with its files in R2. */
async function finishedRun(flowId: string): Promise<string> {
  const res = await hook(flowId, { body: { order: crypto.randomUUID() } });
  expect(res.status).toBe(202);
  const { executionId } = await res.json<{ executionId: string }>();
  expect((await settled(executionId)).state).toBe("FINISHED");
  expect(await filesOf(executionId)).toEqual([`executions/${executionId}/webhook.json`]);
  return executionId;
}

const gone = (executionId: string) =>
  until(`files of ${executionId} removed`, async () => ((await filesOf(executionId)).length ? undefined : true));

describe("an execution's files in R2", () => {
  it("DELETE /executions/{id}: the row, then its files", async () => {
    const flow = await asyncHookFlow();
    const id = await finishedRun(flow);
    const other = await finishedRun(flow);
    expect(await json("DELETE", `/executions/${id}`)).toEqual({ deleted: 1 });
    await gone(id);
    expect((await json("GET", `/executions?agentflowId=${flow}`)).data.map((e: any) => e.id)).toEqual([other]);
    // Another execution's files are left alone.
    expect(await filesOf(other)).toEqual([`executions/${other}/webhook.json`]);
  });

  it("DELETE /executions with several ids: each one's files", async () => {
    const flow = await asyncHookFlow();
    const ids = [await finishedRun(flow), await finishedRun(flow)];
    expect(await json("DELETE", "/executions", { body: { executionIds: ids } })).toEqual({ deleted: 2 });
    for (const id of ids) await gone(id);
  });

  it("DELETE /chatflows/{id}: the files of every execution of the flow", async () => {
    const flow = await asyncHookFlow();
    const ids = [await finishedRun(flow), await finishedRun(flow)];
    const elsewhere = await finishedRun(await asyncHookFlow());
    await json("DELETE", `/chatflows/${flow}`);
    for (const id of ids) await gone(id);
    expect(await filesOf(elsewhere)).toHaveLength(1);
  });

  it("an execution with more files than one R2 page (1,000) loses them all", async () => {
    const flow = await asyncHookFlow();
    const id = await finishedRun(flow);
    const keys = Array.from({ length: 1_005 }, (_, i) => `executions/${id}/steps/${String(i).padStart(4, "0")}.json`);
    for (let at = 0; at < keys.length; at += 50) await Promise.all(keys.slice(at, at + 50).map((k) => env.FILES.put(k, "{}")));
    expect(await json("DELETE", `/executions/${id}`)).toEqual({ deleted: 1 });
    await until(`files of ${id} removed`, async () => ((await filesOf(id)).length ? undefined : true), 20_000);
  });
});
