// Supervisor / worker teams (Flowise's multi-agent templates) over POST /prediction: the supervisor
// routes through its model's `route` tool call, workers answer with their prompts, agentReasoning
// lists every step in order (answer and stored message), the recursion limit stops a supervisor
// that never says FINISH, and graphs that cannot run are 400s naming the node.
import { describe, expect, inject, it } from "vitest";
import customerSupport from "./fixtures/customer-support-team-agents.json";
import promptEngineering from "./fixtures/prompt-engineering-team.json";
import softwareTeam from "./fixtures/software-team.json";
import textToSql from "./fixtures/text-to-sql.json";
import { credential, pointAtStandin, requestsWith } from "../engine/helpers";
import { call, expectError, json } from "../helpers";
import { eventsOf, executionsOf, messagesOf, openAICredential, readStream } from "../agentflow-api/flows";
import { marker, onStandin, saveMultiagent, steps } from "./flows";

const ENGINEER = "senior_software_engineer";
const REVIEWER = "code_reviewer";

describe("Agentflow V1 supervisor and workers", () => {
  it("Software Team: the supervisor routes engineer → reviewer → FINISH; the answer is the last worker's, with agentReasoning in order", async () => {
    const { id, warning } = await saveMultiagent(await onStandin(softwareTeam));
    expect(warning).toBeUndefined();
    const m = marker();
    const question = `build a login page ${m} [route ${ENGINEER}>${REVIEWER}>FINISH]`;
    const answer = await json("POST", `/prediction/${id}`, { body: { question } });

    expect(answer.text).toBe(`echo: echo: ${question}`);
    expect(steps(answer.agentReasoning)).toEqual([
      `Supervisor → ${ENGINEER}`,
      "Senior Software Engineer",
      `Supervisor → ${REVIEWER}`,
      "Code Reviewer",
      "Supervisor → FINISH",
    ]);
    expect(answer.agentReasoning[1]).toMatchObject({
      agentName: "Senior Software Engineer",
      messages: [`echo: ${question}`],
      nodeId: "worker_0",
      usedTools: [],
      state: {},
    });
    expect(answer.agentReasoning[0]).toMatchObject({
      instructions: "step 1",
      state: { next: ENGINEER, team_members: `${ENGINEER}, ${REVIEWER}` },
    });

    // What the model was sent: the route tool forced; the worker's prompt with promptValues and the team filled in.
    const sent = await requestsWith(m);
    const routes = sent.filter((r) => JSON.stringify(r.body).includes('"route"'));
    expect(routes).toHaveLength(3);
    expect((routes[0].body as any).tool_choice).toEqual({ type: "function", function: { name: "route" } });
    const engineerCall = sent.find((r) => r.body.messages[0].content.startsWith("As a Senior Software Engineer at Flowise Inc"))!;
    expect(engineerCall.body.messages[0].content).toContain(`You are one of the following team members: ${ENGINEER}, ${REVIEWER}.`);
    expect(engineerCall.body.messages.slice(1).map((x) => x.content)).toEqual([question]);

    // Stored: both messages, the API message with agentReasoning; the execution FINISHED.
    const messages = await messagesOf(id);
    expect(messages.map((x) => [x.role, x.content])).toEqual([
      ["userMessage", question],
      ["apiMessage", answer.text],
    ]);
    expect(steps(messages[1].agentReasoning)).toEqual(steps(answer.agentReasoning));
    expect((await executionsOf(id)).map((e) => e.state)).toEqual(["FINISHED"]);
  });

  it("Prompt Engineering Team: creator → reviewer → FINISH, the reviewer saw the creator's answer", async () => {
    const { id } = await saveMultiagent(await onStandin(promptEngineering));
    const question = `a prompt for poems ${marker()} [route _prompt_creator>prompt_reviewer>FINISH]`;
    const answer = await json("POST", `/prediction/${id}`, { body: { question } });
    // Flowise names a worker from its label as saved (this template's has a leading space).
    expect(steps(answer.agentReasoning)).toEqual([
      "Supervisor → _prompt_creator",
      " Prompt Creator",
      "Supervisor → prompt_reviewer",
      "Prompt Reviewer",
      "Supervisor → FINISH",
    ]);
    expect(answer.text).toBe(`echo: echo: ${question}`);
    const reviewer = (await requestsWith(question)).find(
      (r) =>
        r.body.messages[0].content.includes("prompt_reviewer") &&
        !JSON.stringify(r.body).includes('"route"') &&
        r.body.messages.length === 3,
    );
    expect(reviewer?.body.messages.slice(1).map((x) => x.content)).toEqual([question, `echo: ${question}`]);
  });

  it("Text to SQL: a worker with a stored custom tool calls it; its usedTools are in its step and the answer; the SQL Expert's schema comes from the Custom JS Function", async () => {
    const tool = await json("POST", "/tools", {
      body: {
        name: "run_sql",
        description: "Runs SQL",
        func: "return 'rows for ' + $sql;",
        schema: JSON.stringify([{ property: "sql", type: "string", description: "the query", required: true }]),
      },
    });
    const { id } = await saveMultiagent(
      await onStandin(textToSql, (nodes) => {
        nodes.get("customTool_0")!.data.inputs!.selectedTool = tool.id;
      }),
    );
    const question = `count users ${marker()} [route sql_executor>FINISH] [call run_sql {"sql":"select 1"}]`;
    const answer = await json("POST", `/prediction/${id}`, { body: { question } });
    expect(answer.text).toBe("tools said: rows for select 1");
    const used = [{ tool: "run_sql", toolInput: { sql: "select 1" }, toolOutput: "rows for select 1" }];
    expect(answer.agentReasoning[1]).toMatchObject({ agentName: "SQL Executor", usedTools: used });
    expect(answer.usedTools).toEqual(used);
    expect((await messagesOf(id))[1].usedTools).toEqual(used);

    // The SQL Expert's {schema} comes from the template's Custom JS Function (customFunction_0), run in the sandbox.
    const m = marker();
    const expert = await json("POST", `/prediction/${id}`, { body: { question: `schema ${m} [route sql_expert>FINISH]` } });
    expect(steps(expert.agentReasoning)).toEqual(["Supervisor → sql_expert", "SQL Expert", "Supervisor → FINISH"]);
    expect(expert.text).toBe(`echo: schema ${m} [route sql_expert>FINISH]`);
    const expertCall = (await requestsWith(m)).find((r) => r.body.messages[0].content.includes("You are given the following schema:"))!;
    expect(expertCall.body.messages[0].content).toContain(
      "You are given the following schema:\nCREATE TABLE customers (\n  customerNumber int NOT NULL,",
    );
    expect(expertCall.body.messages[0].content).toContain("creditLimit decimal(10,2) DEFAULT NULL,\n)\n");
  });

  it("Customer Support Team Agents: the Support Representative's {conversation} is the Custom JS Function's array; its search_docs tool queries Pinecone", async () => {
    const index = `support-${marker()}`;
    const pineconeCred = await credential("pineconeApi", { pineconeApiKey: "pc-support-key" });
    const openAI = await openAICredential();
    const { id, warning } = await saveMultiagent(
      await onStandin(customerSupport, (nodes) => {
        Object.assign(nodes.get("pinecone_0")!.data.inputs!, {
          pineconeIndex: index,
          pineconeIndexHost: `${inject("pineconeUrl")}/idx/${index}`,
        });
        nodes.get("pinecone_0")!.data.credential = pineconeCred;
        pointAtStandin(nodes.get("openAIEmbeddings_0")!, openAI);
      }),
    );
    expect(warning).toBeUndefined();
    const m = marker();
    const question = `install fails ${m} [route support_representative>FINISH] [call search_docs {"input":"install bug"}]`;
    const answer = await json("POST", `/prediction/${id}`, { body: { question } });
    expect(steps(answer.agentReasoning)).toEqual(["Supervisor → support_representative", "Support Representative", "Supervisor → FINISH"]);
    expect(answer.agentReasoning[1].usedTools).toEqual([
      { tool: "search_docs", toolInput: { input: "install bug" }, toolOutput: expect.any(String) },
    ]);

    const conversation = [
      { role: "bot", content: "Hey how can I help you?" },
      { role: "user", content: "There is a bug when installing Flowise" },
      { role: "bot", content: "Can you tell me what was the error?" },
    ];
    const rep = (await requestsWith(m)).find((r) => r.body.messages[0].content.startsWith("As a representative at Flowise Inc"))!;
    expect(rep.body.messages[0].content).toContain(
      `Here is your previous conversation with the customer:\n${JSON.stringify(conversation)}\n`,
    );
    // The retriever tool asked the Pinecone stand-in, in the template's namespace.
    const queries = (
      (await (await fetch(`${inject("pineconeUrl")}/requests`)).json()) as Array<{ path: string; body: { namespace?: string } }>
    ).filter((r) => r.path === `/idx/${index}/query`);
    expect(queries).toHaveLength(1);
    expect(queries[0].body.namespace).toBe("pinecone-flowise-docs");
  });

  it("a supervisor that never says FINISH stops at its recursionLimit with an answer saying so", async () => {
    const t = await onStandin(promptEngineering, (nodes) => {
      nodes.get("supervisor_0")!.data.inputs!.recursionLimit = 5;
    });
    const { id } = await saveMultiagent(t);
    const workers = t.nodes
      .filter((n) => n.data.name === "worker")
      .map((n) => String(n.data.inputs!.workerName).toLowerCase().replace(/\s/g, "_"));
    const question = `loop ${marker()} [route ${workers[0]}]`;
    const answer = await json("POST", `/prediction/${id}`, { body: { question } });
    expect(answer.text).toMatch(/^The team stopped: it reached its recursion limit \(5 steps/);
    expect(answer.text).toContain(`The last worker's answer:\n`);
    // 5 steps: supervisor, worker, supervisor, worker, supervisor (which may not hand a 6th step to a worker).
    expect(answer.agentReasoning.map((r: any) => r.next ?? "worker")).toEqual([workers[0], "worker", workers[0], "worker", "FINISH"]);
  });

  it("streams Flowise's V1 frames: start, agentReasoning after each step, nextAgent, the answer as a token, metadata, end", async () => {
    const { id } = await saveMultiagent(await onStandin(softwareTeam));
    expect(await json("GET", `/chatflows-streaming/${id}`, { token: null })).toEqual({ isStreaming: true });
    const question = `stream ${marker()} [route ${ENGINEER}>FINISH]`;
    const res = await call("POST", `/prediction/${id}`, { body: { question, streaming: true } });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const { frames } = await readStream(res);
    expect(eventsOf(frames)).toEqual([
      "start",
      "agentReasoning",
      "nextAgent",
      "agentReasoning",
      "agentReasoning",
      "token",
      "metadata",
      "end",
    ]);
    expect(steps(frames[0].data)).toEqual([`Supervisor → ${ENGINEER}`]);
    expect(frames[2].data).toBe("Senior Software Engineer");
    expect(steps(frames[4].data)).toEqual([`Supervisor → ${ENGINEER}`, "Senior Software Engineer", "Supervisor → FINISH"]);
    expect(frames[5].data).toBe(`echo: ${question}`);
    expect(frames[6].data).toMatchObject({ question });
    const [, api] = await messagesOf(id);
    expect(api.content).toBe(`echo: ${question}`);
    expect(api.agentReasoning).toHaveLength(3);
  });

  it("graphs that cannot run: a 400 naming the node, the same text as the save-time warning, nothing stored", async () => {
    const t = await onStandin(softwareTeam);
    const lonely = { ...t, edges: t.edges.filter((e) => e.source !== "supervisor_0") };
    const saved = await saveMultiagent(lonely);
    expect(saved.warning).toContain("Supervisor (supervisor_0) has no workers");
    expect(saved.warning).toContain("(worker_0) is not connected to a Supervisor");
    const err = await expectError(await call("POST", `/prediction/${saved.id}`, { body: { question: "hi" } }), 400);
    expect(err.message).toBe(saved.warning);
    expect(await json("GET", `/chatflows-streaming/${saved.id}`, { token: null })).toEqual({ isStreaming: false });
    expect(await messagesOf(saved.id)).toEqual([]);
    expect(await executionsOf(saved.id)).toEqual([]);
  });
});
