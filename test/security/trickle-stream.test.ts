// Issue 18, point 4: a model that trickles a token a second never trips its per-call deadline (the
// clock restarts with each token). The run's time limit (RUN_TIMEOUT_MS) ends it: streaming, the
// tokens so far, then an `error` frame naming the limit, then `end` — promptly — and the call to
// the model is hung up (the stand-in sees its client go), for chatflows and agentflows alike.
import { describe, expect, it } from "vitest";
import { afEdge, executionsOf, llm, saveAgentflowOf, start } from "../agentflow-api/flows";
import { marker } from "../engine/helpers";
import { call, json } from "../helpers";
import { framesOf, openAICredential, saveChain, setVars, standinRequests } from "./helpers";

const LIMIT_MS = 2500;

/** Streams `question` to the flow under a 2.5 s run limit: its frames, how long the answer took, and the stand-in's record of the model call. */
async function trickled(flowId: string, question: string) {
  const restore = setVars({ RUN_TIMEOUT_MS: String(LIMIT_MS) });
  try {
    const started = Date.now();
    const frames = await framesOf(await call("POST", `/prediction/${flowId}`, { body: { question, streaming: true } }));
    const took = Date.now() - started;
    // The stand-in notes when its client hung up; give the close a moment to arrive.
    let model: any;
    for (let i = 0; i < 20 && !model?.stream?.closedEarly; i++) {
      [model] = await standinRequests(question);
      if (!model?.stream?.closedEarly) await new Promise((r) => setTimeout(r, 100));
    }
    return { frames, took, started, model };
  } finally {
    restore();
  }
}

function expectCutAtTheLimit({ frames, took, started, model }: Awaited<ReturnType<typeof trickled>>) {
  const events = frames.map((f) => f.event);
  const tokens = frames.filter((f) => f.event === "token").map((f) => f.data);
  expect(tokens.length).toBeGreaterThanOrEqual(1); // it was answering…
  expect(tokens.every((t) => t === "drip ")).toBe(true);
  expect(events.slice(-2)).toEqual(["error", "end"]); // …then the limit, then the end
  expect(events.indexOf("error")).toBeGreaterThan(events.lastIndexOf("token"));
  expect(frames.at(-2)!.data).toBe("The run did not finish within its time limit (2.5 s)");
  expect(took).toBeGreaterThanOrEqual(LIMIT_MS - 100);
  expect(took).toBeLessThan(LIMIT_MS + 2500);
  // The model call was hung up at the limit, not left trickling.
  expect(model.stream.closedEarly).toBe(true);
  expect(model.stream.closedAt - started).toBeLessThan(LIMIT_MS + 2500);
  expect(model.stream.sent).toBeGreaterThanOrEqual(tokens.length);
}

describe("a model trickling one token a second, streamed", () => {
  it("a chatflow: tokens, then error naming the time limit, then end; the model call is hung up", async () => {
    const id = await saveChain({ model: "chatOpenAI", credential: await openAICredential("sk-trickle") });
    const run = await trickled(id, `[trickle] ${marker()}`);
    expectCutAtTheLimit(run);
    expect(await json("GET", `/chatmessage/${id}`)).toEqual([]);
  });

  it("an agentflow: the same frames, and the execution ends TIMEOUT", async () => {
    const cred = await openAICredential("sk-trickle");
    const { id } = await saveAgentflowOf([start(), llm("llmAgentflow_0", cred)], [afEdge("startAgentflow_0", "llmAgentflow_0")]);
    const run = await trickled(id, `[trickle] ${marker()}`);
    expectCutAtTheLimit(run);
    const [execution] = await executionsOf(id);
    expect(execution.state).toBe("TIMEOUT");
  });
});
