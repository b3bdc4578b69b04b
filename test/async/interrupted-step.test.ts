// Issue 28: a step cut off by a restart runs again from its start (Workflows' rule, locally after a
// wake and in production by itself) — and doubles nothing. Here a stand-in for `step.do` runs a
// step's work and is then "killed" before the result is stored (the worst moment: every frame sent,
// every write landed); the run is then replayed by a fresh WorkflowSteps and event log, as a new
// process would. The event log shows each frame once, the answer and messages are stored once, and
// only the cut-off step asks the model again.
import { env } from "cloudflare:workers";
import type { WorkflowStep } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { execution } from "../../src/db/schema";
import { eventLogOf } from "../../src/detached/event-log";
import type { KeyedFrame } from "../../src/detached/events-object";
import { WorkflowSteps } from "../../src/detached/steps";
import type { Env } from "../../src/env";
import { runFlow } from "../../src/services/runs";
import { DETACHED_RUN } from "../../src/services/runs/triggers";
import { afEdge, llm, openAICredential, saveAgentflowOf, start } from "../agentflow-api/flows";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, db, flowDataOf, pointAtStandin, runtimeWith } from "../engine/helpers";
import { json } from "../helpers";
import { standinRequests } from "../security/helpers";

/**
 * `step.do` as Workflows answers it. The step named `cut` runs its work, then the process "dies"
 * before its result is stored: the step never returns (nothing after it runs) and `killed` resolves.
 */
function fakeStep(store: Map<string, unknown>, cut?: { name: string; killed: () => void }): WorkflowStep {
  return {
    do: async (name: string, ...rest: unknown[]) => {
      const work = rest.at(-1) as () => Promise<unknown>;
      if (store.has(name)) return store.get(name);
      const value = JSON.parse(JSON.stringify(await work()));
      if (cut && name.endsWith(cut.name)) {
        cut.killed();
        return new Promise(() => undefined);
      }
      store.set(name, value);
      return value;
    },
  } as unknown as WorkflowStep;
}

/** The execution's frames, after an `end` closes the log. */
async function framesOf(executionId: string): Promise<{ event: string; data: any }[]> {
  const stub = env.EXECUTION_EVENTS.get(env.EXECUTION_EVENTS.idFromName(executionId));
  const text = await (await stub.fetch("https://execution-events/?after=0")).text();
  return text
    .split("\n\n")
    .filter((b) => b.includes("data:"))
    .map((b) => JSON.parse(/^data:(.*)$/m.exec(b)![1]));
}

/** Frames other than tokens that appear more than once (a token's text may repeat: "a ", "the "). */
const repeated = (frames: { event: string; data: unknown }[]) => {
  const seen = new Set<string>();
  return frames
    .filter((f) => f.event !== "token")
    .map((f) => JSON.stringify([f.event, f.data]))
    .filter((k) => seen.has(k) || !seen.add(k));
};

/** The model calls whose last message contains `marker` (a later node carries earlier ones in its history). */
const asked = async (marker: string) =>
  (await standinRequests(marker)).filter((r) => JSON.stringify(r.body?.messages?.at(-1)?.content ?? "").includes(marker)).length;

async function detachedRow(flowId: string): Promise<string> {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  await db().insert(execution).values({
    id,
    agentflowId: flowId,
    sessionId: id,
    state: "INPROGRESS",
    executionData: "[]",
    detached: true,
    createdDate: now,
    updatedDate: now,
  });
  return id;
}

interface Answer {
  text: string;
  chatMessageId: string;
}

/** One process's go at the run, wired as RunWorkflow wires it (steps, event log); answers the JSON answer. */
async function attempt(store: Map<string, unknown>, flowId: string, executionId: string, question: string): Promise<Answer> {
  return (await go(store, flowId, executionId, question)) as Answer;
}

/**
 * A go that dies in step `cut`, after its work: resolves once it died (its frames sent, its writes
 * landed) — and, when `after` names another step, once that one is stored too (a branch beside it).
 */
async function killedIn(
  cut: string,
  store: Map<string, unknown>,
  flowId: string,
  executionId: string,
  question: string,
  after?: string,
): Promise<void> {
  let killed!: () => void;
  const died = new Promise<void>((r) => (killed = r));
  // The dead go never ends by itself; the lease it leaves running may end it later (409): nobody waits for it.
  go(store, flowId, executionId, question, { name: cut, killed }).catch(() => undefined);
  await died;
  for (let i = 0; i < 200 && after && !store.has(`0: ${after}`); i++) await new Promise((r) => setTimeout(r, 25));
  await new Promise((r) => setTimeout(r, 200)); // its last appends reach the event log
}

async function go(
  store: Map<string, unknown>,
  flowId: string,
  executionId: string,
  question: string,
  cut?: Parameters<typeof fakeStep>[1],
) {
  const steps = new WorkflowSteps(fakeStep(store, cut), env.FILES, executionId, "0: ", { count: 0 });
  const log = eventLogOf(env, executionId, "0: ", () => steps.live);
  steps.onStep = (ran) => log.stepped(ran);
  const deps = { db: db(), env: env as unknown as Env, runtime: runtimeWith(), waitUntil: () => undefined };
  try {
    const delivered = await runFlow(deps, {
      trigger: DETACHED_RUN,
      flowId,
      input: { question, chatId: executionId },
      delivery: "json",
      executionId,
      steps,
      frames: log,
    });
    log.append([{ event: "end", data: "[DONE]" }]);
    return (delivered as { body: unknown }).body;
  } finally {
    await log.flush();
  }
}

describe("an interrupted step runs again without doubling anything", () => {
  it("an agentflow cut off in its last node: frames once, the first node asked once, messages once", async () => {
    const marker = `cut-node-${crypto.randomUUID()}`;
    const cred = await openAICredential();
    const { id } = await saveAgentflowOf(
      [
        start(),
        llm("llmAgentflow_1", cred, { llmUserMessage: `${marker} first` }),
        llm("llmAgentflow_2", cred, { llmUserMessage: `${marker} second` }),
      ],
      [afEdge("startAgentflow_0", "llmAgentflow_1"), afEdge("llmAgentflow_1", "llmAgentflow_2")],
    );
    const executionId = await detachedRow(id);
    const store = new Map<string, unknown>();
    await killedIn("node llmAgentflow_2 #3", store, id, executionId, marker);
    const answer = await attempt(store, id, executionId, marker);

    expect(await asked(`${marker} first`)).toBe(1);
    expect(await asked(`${marker} second`)).toBe(2); // the cut-off step ran again, from its start
    const frames = await framesOf(executionId);
    expect(repeated(frames)).toEqual([]);
    const tokens = frames.filter((f) => f.event === "token").map((f) => f.data);
    expect(tokens.join("")).toBe(answer.text);
    expect(frames.filter((f) => f.event === "nextAgentFlow").map((f) => `${f.data.nodeId} ${f.data.status}`)).toEqual([
      "startAgentflow_0 INPROGRESS",
      "startAgentflow_0 FINISHED",
      "llmAgentflow_1 INPROGRESS",
      "llmAgentflow_1 FINISHED",
      "llmAgentflow_2 INPROGRESS",
      "llmAgentflow_2 FINISHED",
    ]);
    const messages = await json<any[]>("GET", `/chatmessage/${id}?chatId=${executionId}`);
    expect(messages.map((m) => [m.role, m.role === "apiMessage" ? m.content : ""])).toEqual([
      ["userMessage", ""],
      ["apiMessage", answer.text],
    ]);
  });

  it("parallel branches: a branch cut off after its held-back tokens went out shows them once", async () => {
    const marker = `cut-branch-${crypto.randomUUID()}`;
    const cred = await openAICredential();
    const { id } = await saveAgentflowOf(
      [
        start(),
        llm("llmAgentflow_1", cred, { llmUserMessage: `${marker} left` }),
        llm("llmAgentflow_2", cred, { llmUserMessage: `${marker} right` }),
      ],
      [afEdge("startAgentflow_0", "llmAgentflow_1"), afEdge("startAgentflow_0", "llmAgentflow_2")],
    );
    const executionId = await detachedRow(id);
    const store = new Map<string, unknown>();
    // The right branch's frames wait behind the left's (events.ts) and go out when the left one is
    // done; the right one's step dies after its work, the left one is stored.
    await killedIn("node llmAgentflow_2 #3", store, id, executionId, marker, "node llmAgentflow_1 #2");
    await attempt(store, id, executionId, marker);

    expect(await asked(`${marker} left`)).toBe(1);
    expect(await asked(`${marker} right`)).toBe(2);
    const frames = await framesOf(executionId);
    // Each branch says it called no tools: two equal frames, one per branch.
    expect(frames.filter((f) => f.event === "calledTools")).toHaveLength(2);
    expect(repeated(frames.filter((f) => f.event !== "calledTools"))).toEqual([]);
    const tokens = frames
      .filter((f) => f.event === "token")
      .map((f) => f.data)
      .join("");
    expect(tokens.split(`echo: ${marker} left`)).toHaveLength(2);
    expect(tokens.split(`echo: ${marker} right`)).toHaveLength(2);
  });

  it("an agentflow cut off after its record landed: the record finds its answer and stores nothing twice", async () => {
    const marker = `cut-record-${crypto.randomUUID()}`;
    const cred = await openAICredential();
    const { id } = await saveAgentflowOf([start(), llm("llmAgentflow_1", cred)], [afEdge("startAgentflow_0", "llmAgentflow_1")]);
    const executionId = await detachedRow(id);
    const store = new Map<string, unknown>();
    await killedIn("record", store, id, executionId, marker);
    const answer = await attempt(store, id, executionId, marker);

    expect(await asked(marker)).toBe(1);
    const row = await json("GET", `/executions/${executionId}`);
    expect(row).toMatchObject({ state: "FINISHED", result: { text: answer.text, chatMessageId: answer.chatMessageId } });
    const messages = await json<any[]>("GET", `/chatmessage/${id}?chatId=${executionId}`);
    expect(messages.map((m) => m.role)).toEqual(["userMessage", "apiMessage"]);
    expect(messages[1].id).toBe(answer.chatMessageId); // the answer id the first go stored
    expect(repeated(await framesOf(executionId))).toEqual([]);
  });

  it("a chatflow cut off in its answer, or after its record landed: asked again only for the answer, stored once", async () => {
    const cred = await openAICredential();
    const flowData = flowDataOf(llmChain as Fixture, (nodes) => {
      for (const node of nodes.values()) if (node.data.category === "Chat Models") pointAtStandin(node, cred);
    });
    const flow = await json("POST", "/chatflows", { body: { name: "cut chatflow", flowData } });
    for (const [cut, times] of [
      ["run", 2],
      ["record", 1],
    ] as const) {
      const marker = `cut-chatflow-${cut}-${crypto.randomUUID()}`;
      const executionId = await detachedRow(flow.id);
      const store = new Map<string, unknown>();
      await killedIn(cut, store, flow.id, executionId, marker);
      const answer = await attempt(store, flow.id, executionId, marker);
      expect(await asked(marker)).toBe(times);
      const messages = await json<any[]>("GET", `/chatmessage/${flow.id}?chatId=${executionId}`);
      expect(messages.map((m) => [m.role, m.content])).toEqual([
        ["userMessage", marker],
        ["apiMessage", answer.text],
      ]);
      const frames = await framesOf(executionId);
      expect(repeated(frames)).toEqual([]);
      expect(
        frames
          .filter((f) => f.event === "token")
          .map((f) => f.data)
          .join(""),
      ).toBe(answer.text);
    }
  });
});

describe("the event log's keys (ExecutionEvents)", () => {
  const stubOf = (id: string) =>
    env.EXECUTION_EVENTS.get(env.EXECUTION_EVENTS.idFromName(id)) as unknown as { append(frames: KeyedFrame[]): Promise<number> };

  it("drops a key it has; a step's next attempt (by arrival, not id) replaces the earlier one's frames, whose late ones are dropped", async () => {
    const id = crypto.randomUUID();
    const log = stubOf(id);
    await log.append([
      { event: "nextAgentFlow", data: { nodeId: "a" }, key: "0: gap:1" },
      { event: "token", data: "one ", key: "s@1#0", scope: "s", attempt: "x-first" },
      { event: "token", data: "two ", key: "s@1#1", scope: "s", attempt: "x-first" },
    ]);
    expect(await log.append([{ event: "nextAgentFlow", data: { nodeId: "a" }, key: "0: gap:1" }])).toBe(0);
    await log.append([{ event: "token", data: "ONE ", key: "s@2#0", scope: "s", attempt: "a-second" }]);
    expect(await log.append([{ event: "token", data: "late ", key: "s@1#2", scope: "s", attempt: "x-first" }])).toBe(0);
    await log.append([
      { event: "token", data: "TWO", key: "s@2#1", scope: "s", attempt: "a-second" },
      { event: "legacy", data: "no key" },
      { event: "end", data: "[DONE]", key: "0: end" },
    ]);
    const frames = await framesOf(id);
    expect(frames.map((f) => `${f.event}:${typeof f.data === "string" ? f.data : f.data.nodeId}`)).toEqual([
      "nextAgentFlow:a",
      "token:ONE ",
      "token:TWO",
      "legacy:no key",
      "end:[DONE]",
    ]);
  });
});
