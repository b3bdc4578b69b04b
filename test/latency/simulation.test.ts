// The simulated planet (src/lib/d1-simulation.ts): D1_SIMULATED_RTT_MS / D1_SIMULATED_REPLICA_RTT_MS
// refused outside ENVIRONMENT=development; in development each D1 round trip pays its delay and is
// counted, and GET /api/v1/__d1-trace/{requestId} tells the counts before the head, the first token
// and the end of a request's answer.
import { describe, expect, it } from "vitest";
import conversationChain from "../engine/fixtures/conversation-chain.json";
import { marker, requestsWith } from "../engine/helpers";
import { afEdge, llm, openAICredential, saveAgentflowOf, start } from "../agentflow-api/flows";
import { uuid } from "../helpers";
import { standinFlow, workerWith } from "./helpers";

const flowData = JSON.stringify({ nodes: [], edges: [] });

describe("refused outside development", () => {
  it("either var set with another ENVIRONMENT: every request answers 500 naming it", async () => {
    for (const [vars, named] of [
      [{ D1_SIMULATED_RTT_MS: "80" }, "D1_SIMULATED_RTT_MS is set"],
      [{ D1_SIMULATED_REPLICA_RTT_MS: "5" }, "D1_SIMULATED_REPLICA_RTT_MS is set"],
      [{ D1_SIMULATED_RTT_MS: "80", D1_SIMULATED_REPLICA_RTT_MS: "5" }, "D1_SIMULATED_RTT_MS and D1_SIMULATED_REPLICA_RTT_MS are set"],
    ] as const) {
      for (const environment of ["production", "test"]) {
        const call = workerWith({ ENVIRONMENT: environment, ...vars });
        for (const path of ["/ping", "/chatflows"]) {
          const res = await call("GET", path);
          expect(res.status).toBe(500);
          expect(res.body).toMatchObject({ statusCode: 500, success: false });
          expect(res.body.message).toContain(named);
          expect(res.body.message).toContain(`ENVIRONMENT is "${environment}"`);
        }
      }
    }
  });

  it("a value that is not a whole number of ms is refused in development too", async () => {
    for (const bad of ["fast", "-1", "2.5", "10001"]) {
      const res = await workerWith({ ENVIRONMENT: "development", D1_SIMULATED_RTT_MS: bad })("GET", "/ping");
      expect(res.status).toBe(500);
      expect(res.body.message).toContain(`D1_SIMULATED_RTT_MS must be a whole number of milliseconds from 0 to 10000, got "${bad}"`);
    }
  });

  it("without the vars nothing is simulated: no trace endpoint", async () => {
    const call = workerWith({ ENVIRONMENT: "development" });
    const res = await call("GET", "/ping");
    expect(res.status).toBe(200);
    expect((await call("GET", `/__d1-trace/${res.headers.get("x-request-id")}`)).status).toBe(404);
  });
});

describe("in development", () => {
  const planet = workerWith({ ENVIRONMENT: "development", D1_SIMULATED_RTT_MS: "60", D1_SIMULATED_REPLICA_RTT_MS: "20" });
  const traceOf = async (res: { headers: Headers }) => (await planet("GET", `/__d1-trace/${res.headers.get("x-request-id")}`)).body;

  it("a write pays the primary's round trip, a read the replica's, each counted", async () => {
    // A primary far enough that a read on a loaded machine cannot be mistaken for it.
    const far = workerWith({ ENVIRONMENT: "development", D1_SIMULATED_RTT_MS: "300", D1_SIMULATED_REPLICA_RTT_MS: "20" });
    const farTrace = async (res: { headers: Headers }) => (await far("GET", `/__d1-trace/${res.headers.get("x-request-id")}`)).body;
    let t0 = Date.now();
    const created = await far("POST", "/chatflows", { body: { name: `sim ${uuid()}`, flowData } });
    expect(created.status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    expect(await farTrace(created)).toEqual({
      done: { primary: 1, replica: 0 },
      head: { primary: 1, replica: 0 },
      end: { primary: 1, replica: 0 },
    });

    t0 = Date.now();
    const read = await far("GET", `/chatflows/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(20);
    expect(Date.now() - t0).toBeLessThan(300);
    expect(await farTrace(read)).toEqual({
      done: { primary: 0, replica: 1 },
      head: { primary: 0, replica: 1 },
      end: { primary: 0, replica: 1 },
    });
  });

  it("a streamed prediction: its look-ups from a replica before the head, no primary round trip before the first token, its messages in one after", async () => {
    const flowId = await standinFlow();
    const res = await planet("POST", `/prediction/${flowId}`, { body: { question: "[bench:3:0] hi", streaming: true } });
    expect(res.status).toBe(200);
    expect(res.text).toContain('"event":"token"');
    expect(await traceOf(res)).toEqual({
      done: { primary: 1, replica: 1 },
      head: { primary: 0, replica: 1 },
      run: { primary: 0, replica: 1 },
      firstToken: { primary: 0, replica: 1 },
      end: { primary: 1, replica: 1 },
    });
  });

  it("a JSON prediction in a named session (buffer memory): flow, key, credentials and memory in one replica round trip, the messages in one primary one", async () => {
    const flowId = await standinFlow(conversationChain);
    const chatId = uuid();
    const tag = marker();
    for (let turn = 0; turn < 2; turn++) {
      const res = await planet("POST", `/prediction/${flowId}`, { body: { question: `${tag} turn ${turn}`, chatId } });
      expect(res.status).toBe(200);
      expect(await traceOf(res)).toEqual({
        done: { primary: 1, replica: 1 },
        run: { primary: 0, replica: 1 }, // the runtime took over after the batch, before the messages
        head: { primary: 1, replica: 1 },
        end: { primary: 1, replica: 1 },
      });
    }
    // the second turn's model call had the first turn in it: the memory read in the batch is the session's
    const sent = (await requestsWith(`${tag} turn 1`))
      .at(-1)!
      .body.messages.map((m) => m.content)
      .join("\n");
    expect(sent).toContain(`${tag} turn 0`);
  });

  it("a streamed agentflow in a named session: one replica round trip before its first token, its checkpoints beside the nodes", async () => {
    const slow = workerWith({ ENVIRONMENT: "development", D1_SIMULATED_RTT_MS: "150", D1_SIMULATED_REPLICA_RTT_MS: "5" });
    const cred = await openAICredential();
    const { id } = await saveAgentflowOf([start(), llm("llmAgentflow_0", cred)], [afEdge("startAgentflow_0", "llmAgentflow_0")]);
    const chatId = uuid();
    for (let turn = 0; turn < 2; turn++) {
      const res = await slow("POST", `/prediction/${id}`, { body: { question: `turn ${turn}`, chatId, streaming: true } });
      expect(res.status).toBe(200);
      expect(res.text).toContain('"event":"token"');
      const trace = (await slow("GET", `/__d1-trace/${res.headers.get("x-request-id")}`)).body;
      expect(trace.head).toEqual({ primary: 0, replica: 1 });
      expect(trace.run).toEqual({ primary: 0, replica: 1 });
      expect(trace.firstToken).toEqual({ primary: 0, replica: 1 }); // flow, key, memory and last execution in one batch
      expect(trace.end.replica).toBe(1);
      expect(trace.end.primary).toBeGreaterThanOrEqual(1); // the execution's rows and the messages
    }
  });

  it("an unknown request id has no trace", async () => {
    expect((await planet("GET", `/__d1-trace/${uuid()}`)).status).toBe(404);
  });
});
