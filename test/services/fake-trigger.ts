// A trigger that is not in src: "a job from an internal queue", as one adapter file over the run
// door. It defines its rule inline (a TriggerDefinition: its own chatType, no caller checks, no
// resume) instead of a row in src/services/runs/triggers.ts — which is what a real trigger adds —
// and delivers its own shape: the reply, or the reply's tokens as the stream carried them.
import type { Db, Env } from "../../src/env";
import type { Runtime } from "../../src/engine";
import { type Caller, type TriggerDefinition, runFlow } from "../../src/services/runs";

export const QUEUE_TRIGGER: TriggerDefinition = {
  id: "queue-job",
  chatType: "INTERNAL",
  access: "adapter", // the queue's producer was trusted when it enqueued
  checkOrigin: false,
  rateLimit: false,
  resume: "never",
  deliveries: ["json", "sse"],
};

export interface QueueJob {
  flowId: string;
  text: string;
  conversation?: string;
  /** Reply token by token (the door's event stream) instead of one JSON answer. */
  stream?: boolean;
}

export interface QueueReply {
  reply: string;
  conversation: string;
  /** An agentflow's execution. */
  executionId?: string;
  /** With `stream`: the tokens as they came. */
  tokens?: string[];
}

/** The frames of Flowise's event stream, read to its end. */
async function framesOf(body: ReadableStream<Uint8Array>): Promise<Array<{ event: string; data: any }>> {
  const text = await new Response(body).text();
  return text
    .split("\n\n")
    .filter((b) => b.startsWith("message:\ndata:"))
    .map((b) => JSON.parse(b.slice("message:\ndata:".length)));
}

export async function runQueueJob(
  ports: { db: Db; env: Env; runtime: Runtime },
  job: QueueJob,
  rule: TriggerDefinition = QUEUE_TRIGGER,
  caller?: Caller,
): Promise<QueueReply> {
  const work: Promise<unknown>[] = [];
  const delivered = await runFlow(
    { ...ports, waitUntil: (p) => void work.push(p), requestId: "queue" },
    {
      trigger: rule,
      flowId: job.flowId,
      input: { question: job.text, chatId: job.conversation },
      caller,
      delivery: job.stream ? "sse" : "json",
    },
  );
  if (delivered.kind === "json") {
    const answer = delivered.body;
    return { reply: answer.text, conversation: answer.chatId, executionId: "executionId" in answer ? answer.executionId : undefined };
  }
  if (delivered.kind !== "sse") throw new Error("this trigger does not detach runs");
  const frames = await framesOf(delivered.body);
  await Promise.all(work);
  const failed = frames.find((f) => f.event === "error");
  if (failed) throw new Error(failed.data);
  const tokens = frames.filter((f) => f.event === "token").map((f) => String(f.data));
  const metadata = frames.find((f) => f.event === "metadata")?.data ?? {};
  return { reply: tokens.join(""), conversation: metadata.chatId, tokens };
}
