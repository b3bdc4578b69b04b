// The worker's own handler called with an environment of the test's making: a D1 binding that
// records the sessions requests open (withSession's constraint or bookmark), and vars patched in.
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/index";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, flowDataOf, pointAtStandin } from "../engine/helpers";
import { BASE, json } from "../helpers";

export const ADMIN = { authorization: "Bearer test-admin-key" };

/** env.DB, recording each withSession's argument. */
export function recordingDb() {
  const real = (env as unknown as { DB: D1Database }).DB;
  const opened: string[] = [];
  const db = {
    prepare: (sql: string) => real.prepare(sql),
    batch: (statements: D1PreparedStatement[]) => real.batch(statements),
    exec: (sql: string) => real.exec(sql),
    withSession: (constraintOrBookmark?: string) => {
      opened.push(constraintOrBookmark ?? "");
      return real.withSession(constraintOrBookmark);
    },
  };
  return { db, opened };
}

/** A fetch through the worker with `patch` over the test environment (a new environment object per call of this). */
export function workerWith(patch: Record<string, unknown>) {
  const environment = { ...(env as unknown as Record<string, unknown>), ...patch };
  return async (method: string, path: string, init: { headers?: Record<string, string>; body?: unknown } = {}) => {
    const headers = new Headers({ ...ADMIN, ...init.headers });
    if (init.body !== undefined) headers.set("content-type", "application/json");
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`${BASE}${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) }),
      environment as never,
      ctx,
    );
    const text = await res.text(); // the whole body: a stream's end included
    await waitOnExecutionContext(ctx);
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: res.status, headers: res.headers, text, body };
  };
}

/** A chatflow (llmChain by default) whose chat model is the stand-in (its `[bench:N:D]` phrase streams N tokens). */
export async function standinFlow(fixture: unknown = llmChain): Promise<string> {
  const cred = (
    await json("POST", "/credentials", { body: { name: "openai", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-test" } } })
  ).id;
  const flowData = flowDataOf(fixture as Fixture, (nodes) => {
    for (const node of nodes.values()) if (node.data.category === "Chat Models") pointAtStandin(node, cred);
  });
  return (await json("POST", "/chatflows", { body: { name: "latency flow", flowData } })).id;
}
