// Flowise's 13 agentflow templates in the runtime: every one passes the save-time check; the ones
// that need only a chat model (and a document store) answer through the stand-in; the ones that
// need a service edgeflow does not have fail with a clear 400 naming it, never a hang.
import { describe, expect, it } from "vitest";
import { validateAgentflow } from "../../src/engine/agentflow";
import { createTool } from "../../src/services/tools";
import { db } from "../engine/helpers";
import { TOWN_TEXT } from "../engine/retrieval-flows";
import { LOCAL, newStore, upsert as storeUpsert } from "../routes/document-store-helpers";
import { marker, outputOf, requestsWith, run } from "./helpers";
import { TEMPLATES, type TemplateName, runnable, template } from "./templates";

const chatCalls = async (m: string) => (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions"));

async function townStore(): Promise<string> {
  const store = await newStore("town");
  await storeUpsert(store.id, {
    loader: { name: "plainText", config: { text: TOWN_TEXT } },
    splitter: { name: "recursiveCharacterTextSplitter", config: { chunkSize: 1000 } },
    ...LOCAL,
  });
  return store.id;
}

describe("the save-time check", () => {
  for (const name of Object.keys(TEMPLATES) as TemplateName[]) {
    it(`${name}: no error, no warning`, () => expect(validateAgentflow(template(name))).toEqual({ errors: [], warnings: [] }));
  }
});

describe("templates that answer through the stand-in", () => {
  it("Translator: the TipTap prompt as text, memory off", async () => {
    const m = marker();
    const out = await run(runnable("Translator"), { question: `Good morning ${m}`, streaming: true });
    expect(out.state).toBe("FINISHED");
    const [req] = await chatCalls(m);
    expect(req.body.messages[0]).toEqual({
      role: "system",
      content: "You are a helpful assistant that translates English to Japanese language. Return only Japanese language",
    });
    expect(req.body.messages.at(-1)).toEqual({ role: "user", content: `English:\n\nGood morning ${m}\n\nJapanese:` });
    expect(out.text).toBe(`echo: English:\n\nGood morning ${m}\n\nJapanese:`);
    expect(out.rec.tokens()).toBe(out.text);
  });

  it("Structured Output: a jsonArray of {answer, reason} through a forced function", async () => {
    const out = await run(runnable("Structured Output"), { question: "Is the sky blue?" });
    expect(out.state).toBe("FINISHED");
    const value = JSON.parse(out.text);
    expect(value.output).toEqual([{ answer: expect.stringMatching(/^echo: /), reason: expect.stringMatching(/^echo: /) }]);
    expect(outputOf(out.executedData, "llmAgentflow_0")!.output).toEqual(value.output);
  });

  it("Supervisor Worker: the supervisor's enum goes to state, the Condition picks the worker; FINISH ends at the final answer", async () => {
    const m = marker();
    const out = await run(runnable("Supervisor Worker"), { question: `Build a todo app ${m}` });
    expect(out.state).toBe("FINISHED");
    expect(out.executedData.map((e) => e.nodeId)).toEqual([
      "startAgentflow_0",
      "llmAgentflow_0",
      "conditionAgentflow_0",
      "agentAgentflow_3",
    ]);
    expect(out.executedData[1].data.state).toMatchObject({ next: "FINISH" });
    expect(out.text).toMatch(/^echo: Given the above conversations, generate a detail solution/);
  });

  it("Supervisor Worker looping: SOFTWARE each time, the Software Engineer and the loop back, until the loop's count", async () => {
    const choice = JSON.stringify({ next: "SOFTWARE", instructions: "write it", reasoning: "r" });
    const g = runnable("Supervisor Worker", {
      patch: (n) => {
        n.get("llmAgentflow_0")!.data.inputs!.llmUserMessage = `Who next? [so ${choice}]`;
      },
    });
    const out = await run(g, { question: "Build a todo app" });
    expect(out.state).toBe("FINISHED");
    expect(out.executedData.filter((e) => e.nodeId === "agentAgentflow_1")).toHaveLength(5);
    expect(out.text).toBe("Loop completed after reaching maximum iteration count of 5.");
    const engineer = out.executedData.find((e) => e.nodeId === "agentAgentflow_1")!;
    expect((engineer.data.input!.messages as Array<{ content: string }>).at(-1)!.content).toBe("write it");
  });

  it("Iterations: the block runs per item with {{ $iteration.item }}, then the agent", async () => {
    const out = await run(runnable("Iterations"), { question: "go" });
    expect(out.state).toBe("FINISHED");
    const iteration = outputOf(out.executedData, "iterationAgentflow_0")!;
    expect(iteration.iterationResults).toEqual(["echo: Reply only:\n\nabc", "echo: Reply only:\n\ndef"]);
    expect(out.executedData.map((e) => e.nodeId)).toEqual([
      "startAgentflow_0",
      "llmAgentflow_0",
      "llmAgentflow_1",
      "llmAgentflow_0",
      "llmAgentflow_1",
      "iterationAgentflow_0",
      "agentAgentflow_0",
    ]);
    expect(out.text).toBe("echo: go");
  });

  it("Simple RAG: the document store as the agent's retriever tool; its sources come back", async () => {
    const storeId = await townStore();
    const out = await run(runnable("Simple RAG", { storeId }), {
      question: '[call ai-paper {"input":"bakery croissants"}] what does the bakery sell?',
    });
    expect(out.state).toBe("FINISHED");
    expect(out.text).toMatch(/^tools said: .*croissants/s);
    expect(out.usedTools).toEqual([expect.objectContaining({ tool: "ai-paper", toolInput: { input: "bakery croissants" } })]);
    expect(out.sourceDocuments.length).toBeGreaterThan(0);
  });

  it("Agentic RAG: condition agent → query into state → retriever with {{ $flow.state.query }} → relevance check → answer", async () => {
    const storeId = await townStore();
    const m = marker();
    const out = await run(runnable("Agentic RAG", { storeId }), { question: `library poetry circle ${m}` });
    expect(out.state).toBe("FINISHED");
    expect(out.executedData.map((e) => e.nodeId)).toEqual([
      "startAgentflow_0",
      "conditionAgentAgentflow_0",
      "llmAgentflow_0",
      "retrieverAgentflow_0",
      "conditionAgentAgentflow_1",
      "llmAgentflow_2",
    ]);
    const query = out.executedData[2].data.state!.query as string;
    expect(query).toMatch(/^echo: /);
    expect(out.executedData[3].data.input).toEqual({ question: query });
    const general = await run(runnable("Agentic RAG", { storeId }), { question: `hello there [pick 2] ${m}` });
    expect(general.executedData.map((e) => e.nodeId)).toEqual(["startAgentflow_0", "conditionAgentAgentflow_0", "llmAgentflow_1"]);
  });

  it("Agents Handoff (search tool removed): the condition agent hands off to the agent of the scenario", async () => {
    const g = runnable("Agents Handoff", {
      patch: (n) => {
        n.get("agentAgentflow_1")!.data.inputs!.agentTools = "";
      },
    });
    const refund = await run(g, { question: "I want my money back [pick 1]" });
    expect(refund.executedData.at(-1)!.nodeId).toBe("agentAgentflow_0");
    const sales = await run(g, { question: "looking for shoes [pick 2]" });
    expect(sales.executedData.at(-1)!.nodeId).toBe("agentAgentflow_1");
    expect(sales.text).toBe("echo: looking for shoes [pick 2]");
  });

  it("Human In The Loop (tools stubbed): form → draft → pause; proceed → subject/body → the send tool gets them", async () => {
    const sent = await createTool(
      { db: db() },
      {
        name: "gmail_stub",
        schema: JSON.stringify(["to", "subject", "body"].map((property) => ({ property, type: "string", required: true }))),
        func: "return 'sent to ' + $to + ': ' + $subject",
      },
    );
    const g = runnable("Human In The Loop", {
      patch: (n) => {
        n.get("agentAgentflow_0")!.data.inputs!.agentTools = "";
        Object.assign(n.get("toolAgentflow_0")!.data.inputs!, {
          toolAgentflowSelectedTool: "customTool",
          toolAgentflowSelectedToolConfig: { selectedTool: sent.id },
        });
      },
    });
    const form = { subject: "Pricing", body: "How much is it?", from: "bob@example.com" };
    const paused = await run(g, { form });
    expect(paused.state).toBe("STOPPED");
    expect(paused.text).toMatch(/\n\nAre you sure you want to proceed\?$/);
    const done = await run(g, {
      question: "Proceed",
      resume: { executionId: "e", executedData: paused.executedData, humanInput: { type: "proceed" } },
    });
    expect(done.state).toBe("FINISHED");
    const subject = outputOf(done.executedData, "llmAgentflow_0")!.subject as string;
    expect(done.text).toBe(`sent to bob@example.com: ${subject}`);
    const rejected = await run(g, {
      question: "Reject",
      resume: { executionId: "e", executedData: paused.executedData, humanInput: { type: "reject", feedback: "shorter" } },
    });
    expect(rejected.state).toBe("STOPPED"); // back to the agent, which drafts again and pauses again
    expect(rejected.executedData.map((e) => e.nodeId).slice(-3)).toEqual(["loopAgentflow_0", "agentAgentflow_0", "humanInputAgentflow_0"]);
  });
});

describe("templates that need a service edgeflow does not have: a clear 400 naming it", () => {
  const cases: Array<[TemplateName, Record<string, unknown>, RegExp]> = [
    // Its Slack tool (slackMCP) and its Teams tool have no credential in the export.
    ["Workplace Chat", { question: "hi" }, /Missing Slack credentials|needs a microsoftTeamsOAuth2 credential/],
    // The exported template's OpenAPI toolkit carries no spec file.
    ["Interacting With API", { question: "events?" }, /OpenAPI Agent \(agentAgentflow_1\) needs an OpenAPI spec: upload one in yamlFile/],
    ["SQL Agent", { question: "how many rows?" }, /require\('typeorm'\) is not available in this sandbox/],
  ];
  for (const [name, req, message] of cases) {
    it(name, async () => {
      const out = await run(runnable(name), req);
      expect(out).toMatchObject({ state: "ERROR", errorStatus: 400 });
      expect(out.error).toMatch(message);
    });
  }

  it("Workplace Chat's slackMCP without a credential: a 400 saying it takes slackOAuth2 or a slackApi bot token", async () => {
    const g = runnable("Workplace Chat", {
      patch: (n) => {
        Object.assign(n.get("toolAgentflow_1")!.data.inputs!, {
          toolAgentflowSelectedTool: "currentDateTime",
          toolAgentflowSelectedToolConfig: {},
        });
      },
    });
    const out = await run(g, { question: "hi" });
    expect(out).toMatchObject({ state: "ERROR", errorStatus: 400 });
    expect(out.error).toMatch(
      /Missing Slack credentials\. Provide either an OAuth2 access token \(slackOAuth2\) or a Bot Token with Team ID \(slackApi\)/,
    );
  });

  it("Human In The Loop: the agent has current_date_time (and a search tool that says it has no credential); proceeding reaches Gmail without a credential, a 400", async () => {
    const m = marker();
    const form = { subject: `Pricing ${m}`, body: "How much?", from: "bob@example.com" };
    const paused = await run(runnable("Human In The Loop"), { form });
    expect(paused.state).toBe("STOPPED");
    const [first] = await chatCalls(m);
    expect((first.body as { tools?: Array<{ function: { name: string } }> }).tools?.map((t) => t.function.name)).toEqual([
      "google-custom-search",
      "current_date_time",
    ]);
    const done = await run(runnable("Human In The Loop"), {
      question: "Proceed",
      resume: { executionId: "e", executedData: paused.executedData, humanInput: { type: "proceed" } },
    });
    expect(done).toMatchObject({ state: "ERROR", errorStatus: 400 });
    // gmail runs now (engine/tools/google/gmail.ts); the template names no gmailOAuth2 credential.
    expect(done.error).toMatch(/needs a gmailOAuth2 credential/);
  });

  it("Deep Research With Subagents: each item's failure (arXiv PDF download) is that item's result; the run goes on", async () => {
    const out = await run(runnable("Deep Research With Subagents"), { form: { query: "history of tea" } });
    expect(out.state).toBe("FINISHED");
    expect(outputOf(out.executedData, "iterationAgentflow_0")!.content).toMatch(
      /^Error in iteration 1: Error in Agent node: SubAgent \(agentAgentflow_0\): loadFullContent \(PDF download\) is not supported/,
    );
  });

  it("Deep Research With Multi-turn Conversations: the search tools without credentials tell the agents so (a model that searches reads why)", async () => {
    const g = runnable("Deep Research With Multi-turn Conversations", {
      patch: (n) => {
        n.get("llmAgentflow_0")!.data.inputs!.llmMessages = [];
      },
    });
    const out = await run(g, { question: '[call brave-search {"input":"tea"}] tea' });
    expect(out.state).toBe("FINISHED");
    const agent0 = outputOf(out.executedData, "agentAgentflow_0")!;
    expect(agent0.usedTools?.[0]?.error ?? "").toMatch(/is not configured: connect a braveSearchApi credential/);
  });
});
