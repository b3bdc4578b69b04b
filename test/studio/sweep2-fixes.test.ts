// What a second sweep of Flowise's UI against edgeflow found broken (the agent canvas, document
// stores, executions and the remaining pages), call by call as the pages make them: the HTTP node's
// credential list, the Validate button on an Agent with a Custom Tool, the test chat's history of an
// agentflow (its "Process Flow" on reopening), and the Executions page's Agentflow filter.
import { beforeAll, describe, expect, it } from "vitest";
import { afEdge, afNode, directReply, llm, openAICredential, saveAgentflowOf, start } from "../agentflow-api/flows";
import { json } from "../helpers";
import { signedIn, studio } from "./helpers";

let cookie = "";
beforeAll(async () => {
  cookie = (await signedIn()).cookie;
});

describe("the HTTP node's credential drop-down (GET /credentials with credentialName repeated)", () => {
  it("lists the credentials of every type named, as Flowise does", async () => {
    const made = async (credentialName: string, plainDataObj: Record<string, string>) =>
      (await json("POST", "/credentials", { body: { name: `sweep2 ${credentialName}`, credentialName, plainDataObj } })).id;
    const basic = await made("httpBasicAuth", { basicAuthUsername: "u", basicAuthPassword: "p" });
    const bearer = await made("httpBearerToken", { token: "t" });
    const res = await studio("GET", "/credentials?credentialName=httpBasicAuth&credentialName=httpBearerToken&credentialName=httpApiKey", {
      cookie,
    });
    expect(res.status).toBe(200);
    const ids = ((await res.json()) as { id: string }[]).map((c) => c.id);
    expect(ids).toEqual(expect.arrayContaining([basic, bearer]));
    const one = (await (await studio("GET", "/credentials?credentialName=httpBearerToken", { cookie })).json()) as { id: string }[];
    expect(one.map((c) => c.id)).toContain(bearer);
    expect(one.map((c) => c.id)).not.toContain(basic);
  });
});

describe("Validate on an Agent whose tool is a Custom Tool picked from the list", () => {
  it("reports nothing for the Custom Tool's hidden inputs (name, description, schema, function)", async () => {
    const credential = await openAICredential();
    const tool = await json("POST", "/tools", {
      body: { name: "sweep2_tool", description: "says hi", color: "#333", schema: "[]", func: "return 'hi';" },
    });
    const agent = afNode("agentAgentflow_0", "Agent 0", {
      agentModel: "chatOpenAI",
      agentModelConfig: { modelName: "gpt-4o-mini", FLOWISE_CREDENTIAL_ID: credential },
      agentTools: [
        // As the dialog saves it: the hidden inputs empty, only the chosen tool filled.
        {
          agentSelectedTool: "customTool",
          agentSelectedToolRequiresHumanInput: "",
          agentSelectedToolConfig: {
            selectedTool: tool.id,
            returnDirect: "",
            customToolName: "",
            customToolDesc: "",
            customToolSchema: "",
            customToolFunc: "",
            agentSelectedTool: "customTool",
          },
        },
      ],
      agentReturnResponseAs: "userMessage",
    });
    const { id } = await saveAgentflowOf([start(), agent], [afEdge("startAgentflow_0", "agentAgentflow_0")]);
    const issues = await (await studio("GET", `/validation/${id}`, { cookie })).json();
    expect(issues).toEqual([]);
    // A row with no tool chosen is still reported.
    const { id: empty } = await saveAgentflowOf(
      [start(), { ...agent, data: { ...agent.data, inputs: { ...agent.data.inputs, agentTools: [{ agentSelectedTool: "" }] } } }],
      [afEdge("startAgentflow_0", "agentAgentflow_0")],
    );
    const found = (await (await studio("GET", `/validation/${empty}`, { cookie })).json()) as { issues: string[] }[];
    expect(found.flatMap((n) => n.issues)).toEqual(["Tools item #1: Tool is required"]);
  });
});

describe("an agentflow's test chat reopened (GET /internal-chatmessage/{id})", () => {
  it("gives each answer its execution, whose executionData draws the answer's Process Flow", async () => {
    const credential = await openAICredential();
    const { id } = await saveAgentflowOf(
      [start(), llm("llmAgentflow_0", credential), directReply("directReplyAgentflow_0", "all done")],
      [afEdge("startAgentflow_0", "llmAgentflow_0"), afEdge("llmAgentflow_0", "directReplyAgentflow_0")],
    );
    const ran = await studio("POST", `/internal-prediction/${id}`, { cookie, body: { question: "sweep2 history", chatId: "s2" } });
    expect(ran.status).toBe(200);
    const { executionId } = (await ran.json()) as { executionId: string };
    const history = (await (await studio("GET", `/internal-chatmessage/${id}?feedback=true`, { cookie })).json()) as any[];
    expect(history.map((m) => m.role)).toEqual(["userMessage", "apiMessage"]);
    expect(history[0].execution).toBeUndefined();
    const { execution } = history[1];
    expect(execution).toMatchObject({ id: executionId, state: "FINISHED", agentflowId: id });
    const executed = JSON.parse(execution.executionData) as { nodeId: string; data: Record<string, unknown> }[];
    expect(executed.map((e) => e.nodeId)).toEqual(["startAgentflow_0", "llmAgentflow_0", "directReplyAgentflow_0"]);
    expect(JSON.stringify(executed)).not.toContain(credential);
  });
});

describe("the Executions page's Agentflow filter (GET /executions?agentflowName=)", () => {
  it("keeps the runs of agentflows whose name contains the text, in any case; a % is literal", async () => {
    const { id } = await json("POST", "/chatflows", {
      body: {
        name: "Sweep2 Lighthouse 50% flow",
        type: "AGENTFLOW",
        flowData: JSON.stringify({
          nodes: [start(), directReply("directReplyAgentflow_0", "ok")],
          edges: [afEdge("startAgentflow_0", "directReplyAgentflow_0")],
        }),
      },
    });
    await json("POST", `/prediction/${id}`, { body: { question: "run" } });
    const page = async (q: string) => (await (await studio("GET", `/executions?page=1&limit=12&${q}`, { cookie })).json()) as any;
    const named = await page("agentflowName=lighthouse%2050%25");
    expect(named.total).toBe(1);
    expect(named.data[0]).toMatchObject({ agentflowId: id, agentflow: { name: "Sweep2 Lighthouse 50% flow" } });
    expect((await page("agentflowName=no-such-flow-name")).total).toBe(0);
    expect((await page("agentflowName=%25")).data.every((e: any) => e.agentflow.name.includes("%"))).toBe(true);
  });
});
