// Runs whose traces are out of the ordinary, sent to all six kinds of backend at once (Langfuse, LangSmith,
// OTLP, LangWatch, Lunary, Phoenix) whose stand-ins refuse what the real services refuse: an agentflow with
// emoji and CJK in its names that stops for a human and is resumed (two traces, the first with no answer), a
// streamed run that fails. Every backend must take every request whole (2xx, nothing dropped in the answer).
import { describe, expect, it } from "vitest";
import { afEdge, directReply, humanInput, llm, openAICredential, saveAgentflowOf, start } from "../agentflow-api/flows";
import { call, json } from "../helpers";
import {
  analyticFor,
  byPath,
  credential,
  expectAccepted,
  langwatchLunaryAnalytic,
  marker,
  receivedWith,
  toolAgentFlow,
  tracingUrl,
  INGESTION,
  RUNS,
  TRACES,
  COLLECTOR,
  INGEST,
  PHOENIX,
} from "./helpers";

const PATHS = [INGESTION, RUNS, TRACES, COLLECTOR, INGEST, PHOENIX];

async function everyBackend(): Promise<string> {
  const phoenix = await credential("phoenixApi", { phoenixApiKey: "phx-unusual", phoenixEndpoint: `${tracingUrl()}/phoenix` });
  return JSON.stringify({
    ...JSON.parse(await analyticFor()),
    ...JSON.parse(await langwatchLunaryAnalytic()),
    phoenix: { credentialId: phoenix, status: true, projectName: "unusual" },
  });
}

/** One request per backend for the run marked `m`, each accepted whole: their bodies by path. */
async function everyOneAccepted(m: string): Promise<(path: string) => any> {
  const got = await receivedWith(m, PATHS.length);
  const bodies = new Map<string, any>();
  for (const path of PATHS) {
    const found = byPath(got, path);
    expect(found, `one request to ${path}`).toHaveLength(1);
    expectAccepted(found[0]);
    bodies.set(path, found[0].body);
  }
  return (path) => bodies.get(path);
}

describe("unusual runs reach every backend whole", () => {
  it("an agentflow named in emoji and CJK stops for a human, then resumes: both parts' traces are taken", async () => {
    const credentialId = await openAICredential();
    const writer = llm("llmAgentflow_0", credentialId);
    writer.data.label = "✍️ Rédacteur 漢字";
    const ask = humanInput("humanInputAgentflow_0", "Envoyer ? 🚀");
    ask.data.label = "🙋 Humain";
    const nodes = [
      start(),
      writer,
      ask,
      directReply("directReplyAgentflow_0", "envoyé ✅"),
      directReply("directReplyAgentflow_1", "annulé"),
    ];
    const edges = [
      afEdge("startAgentflow_0", "llmAgentflow_0"),
      afEdge("llmAgentflow_0", "humanInputAgentflow_0"),
      afEdge("humanInputAgentflow_0", "directReplyAgentflow_0", 0),
      afEdge("humanInputAgentflow_0", "directReplyAgentflow_1", 1),
    ];
    const { id } = await saveAgentflowOf(nodes, edges, { name: "🚀 Flüx 漢字 🧪", analytic: await everyBackend() });

    const m = marker();
    const paused = await json("POST", `/prediction/${id}`, { body: { question: `Écris 😀 ${m}` } });
    expect(paused.action.data.nodeId).toBe("humanInputAgentflow_0");
    const first = await everyOneAccepted(m);
    const events = first(PATHS[0]).batch as any[];
    expect(events.find((e) => e.type === "trace-create").body.name).toBe("🚀 Flüx 漢字 🧪");
    expect(events.map((e) => e.body.name)).toContain("✍️ Rédacteur 漢字");
    const runs = first(PATHS[1]).post as any[];
    expect(runs.find((r) => r.name === "🙋 Humain")).toMatchObject({ run_type: "chain" });

    const m2 = marker();
    const done = await json("POST", `/prediction/${id}`, {
      body: { question: `Oui ${m2}`, chatId: paused.chatId, humanInput: { type: "proceed" } },
    });
    expect(done.text).toBe("envoyé ✅");
    const second = await everyOneAccepted(m2);
    const spans = second(PATHS[2]).resourceSpans[0].scopeSpans[0].spans as any[];
    expect(spans.map((s) => s.name)).toContain("Reply 0");
  });

  it("a streamed run whose model fails: the error trace is taken by every backend", async () => {
    const id = await toolAgentFlow({ analytic: await everyBackend() });
    const m = marker();
    const res = await call("POST", `/prediction/${id}`, { body: { question: `[fail] ${m}`, streaming: true } });
    await res.text();
    const got = await everyOneAccepted(m);
    const trace = (got(PATHS[0]).batch as any[]).find((e) => e.type === "trace-create").body;
    expect(trace.metadata.error).toBeTruthy();
    const root = (got(PATHS[1]).post as any[]).find((r) => !r.parent_run_id);
    expect(root.error).toBeTruthy();
    expect((got(PATHS[3]).spans as any[])[0].error).toMatchObject({ has_error: true });
  });
});
