// The Utilities nodes beside the Custom JS Function: IfElse Function (its JavaScript in the sandbox
// picks the True or False output; only the nodes behind the output taken run, and the ending node
// left in answers), Set Variable / Get Variable (a value kept for the rest of the run, read back by
// name by a node not connected to it; showOutput reports it as the answer's flowVariables).
import { describe, expect, it } from "vitest";
import type { FlowNode } from "../../src/engine";
import { json } from "../helpers";
import { openAICredential } from "../agentflow-api/flows";
import llmChain from "./fixtures/llm-chain.json";
import { makeCtx, marker, pointAtStandin, requestsWith, runFlow } from "./helpers";

const ANY = "string|number|boolean|json|array";

function node(
  id: string,
  name: string,
  category: string,
  inputs: Record<string, unknown>,
  extra: Partial<FlowNode["data"]> = {},
): FlowNode {
  return {
    id,
    type: "customNode",
    position: { x: 0, y: 0 },
    data: { id, name, label: `${name} ${id.slice(-1)}`, category, inputs, ...extra },
  } as unknown as FlowNode;
}

const jsonParams = [{ label: "Input Variables", name: "functionInputVariables", type: "json", acceptVariable: true, list: true }];

const ifElse = (ifFunction: string, elseFunction = "return false;", vars = "") =>
  node("ifElseFunction_0", "ifElseFunction", "Utilities", { functionInputVariables: vars, ifFunction, elseFunction }, {
    label: "IfElse Function",
    inputParams: jsonParams,
  } as never);

const endingFn = (id: string, code: string, vars: string) =>
  node(id, "customFunction", "Utilities", { functionInputVariables: vars, javascriptFunction: code }, {
    inputParams: jsonParams,
    outputs: { output: "EndingNode" },
  } as never);

const branchEdge = (target: string, output: "returnTrue" | "returnFalse", input = "functionInputVariables") => ({
  id: `ifElseFunction_0-${output}-${target}`,
  source: "ifElseFunction_0",
  sourceHandle: `ifElseFunction_0-output-${output}-${ANY}`,
  target,
  targetHandle: `${target}-input-${input}-json`,
});

const plainEdge = (source: string, target: string, input: string) => ({
  id: `${source}-${target}`,
  source,
  sourceHandle: `${source}-output-output-${ANY}`,
  target,
  targetHandle: `${target}-input-${input}`,
});

/** IfElse → (True) a function answering "yes: <value>", (False) one answering "no: <value>". */
function yesNoFlow(ifFunction: string, elseFunction?: string): string {
  const value = JSON.stringify({ v: "{{ifElseFunction_0.data.instance}}" });
  const nodes = [
    ifElse(ifFunction, elseFunction),
    endingFn("customFunction_0", "return `yes: ${$v}`;", value),
    endingFn("customFunction_1", "return `no: ${$v}`;", value),
  ];
  return JSON.stringify({
    nodes,
    edges: [branchEdge("customFunction_0", "returnTrue"), branchEdge("customFunction_1", "returnFalse")],
  });
}

/**
 * IfElse routing the question to one of two LLM chains (each with its own prompt and chat model, as
 * Flowise's editor needs them): True → "Weather desk: {x}", False → "General desk: {x}".
 */
function twoChainFlow(cred: string): string {
  const base = structuredClone(llmChain.nodes) as unknown as FlowNode[];
  const [prompt, chain, model] = ["promptTemplate_0", "llmChain_0", "azureChatOpenAI_0"].map((id) => base.find((n) => n.id === id)!);
  const copyOf = (n: FlowNode, suffix: string): FlowNode => {
    const c = structuredClone(n);
    c.id = c.id.replace(/_0$/, suffix);
    c.data.id = c.id;
    return c;
  };
  const nodes: FlowNode[] = [ifElse('if ($input.toLowerCase().includes("weather")) return "forecast for " + $input;', "return $input;")];
  for (const [suffix, desk] of [
    ["_0", "Weather desk"],
    ["_1", "General desk"],
  ] as const) {
    const p = copyOf(prompt, suffix);
    p.data.inputs = { template: `${desk}: {x}`, promptValues: JSON.stringify({ x: "{{ifElseFunction_0.data.instance}}" }) };
    const m = copyOf(model, suffix);
    pointAtStandin(m, cred);
    const c = copyOf(chain, suffix);
    c.data.inputs = { ...c.data.inputs, prompt: `{{${p.id}.data.instance}}`, model: `{{${m.id}.data.instance}}` };
    nodes.push(p, m, c);
  }
  const edges = [
    branchEdge("promptTemplate_0", "returnTrue", "promptValues"),
    branchEdge("promptTemplate_1", "returnFalse", "promptValues"),
    ...["_0", "_1"].flatMap((s) => [
      { id: `p${s}`, source: `promptTemplate${s}`, target: `llmChain${s}`, sourceHandle: "p", targetHandle: "prompt" },
      { id: `m${s}`, source: `azureChatOpenAI${s}`, target: `llmChain${s}`, sourceHandle: "m", targetHandle: "model" },
    ]),
  ];
  return JSON.stringify({ nodes, edges });
}

describe("ifElseFunction", () => {
  it("a truthy If Function takes the True output with its value; otherwise the Else Function's value takes False", async () => {
    const flow = yesNoFlow('if ($input.startsWith("go")) { return $input.toUpperCase(); }', "return $input.length;");
    expect((await runFlow(flow, makeCtx("go north"))).text).toBe("yes: GO NORTH");
    expect((await runFlow(flow, makeCtx("stop"))).text).toBe("no: 4");
  });

  it("sees $vars, $flow and its input variables; a throw is a 400 naming the node", async () => {
    const withVars = JSON.stringify({
      nodes: [
        ifElse("return $limit > 3 && $flow.sessionId === 's-1' && $vars.mode === 'on';", "return 'blocked';", '{"limit": 5}'),
        endingFn("customFunction_0", "return 'open';", ""),
        endingFn("customFunction_1", "return `closed (${$v})`;", JSON.stringify({ v: "{{ifElseFunction_0.data.instance}}" })),
      ],
      edges: [branchEdge("customFunction_0", "returnTrue"), branchEdge("customFunction_1", "returnFalse")],
    });
    expect((await runFlow(withVars, makeCtx("q", { sessionId: "s-1", vars: { mode: "on" } }))).text).toBe("open");
    expect((await runFlow(withVars, makeCtx("q", { sessionId: "s-2", vars: { mode: "on" } }))).text).toBe("closed (blocked)");

    const err = (await runFlow(yesNoFlow("throw new Error('no way');"), makeCtx("x")).catch((e: unknown) => e)) as {
      status?: number;
      message?: string;
    };
    expect(err.status).toBe(400);
    expect(err.message).toContain("IfElse Function (ifElseFunction_0)");
    expect(err.message).toContain("no way");
  });

  it("routes a saved chatflow to one LLM chain over POST /prediction: only that branch's model is asked", async () => {
    const cred = await openAICredential();
    const { id } = await json("POST", "/chatflows", { body: { name: "if-else", flowData: twoChainFlow(cred) } });
    const m = marker();
    const weather = await json("POST", `/prediction/${id}`, { body: { question: `Weather in Oslo ${m}` } });
    expect(weather.text).toBe(`echo: Weather desk: forecast for Weather in Oslo ${m}`);
    const asked = await requestsWith(m);
    expect(asked).toHaveLength(1);
    expect(asked[0].body.messages.at(-1)?.content).toBe(`Weather desk: forecast for Weather in Oslo ${m}`);

    const other = marker();
    const general = await json("POST", `/prediction/${id}`, { body: { question: `Tell a joke ${other}` } });
    expect(general.text).toBe(`echo: General desk: Tell a joke ${other}`);
    expect(await requestsWith(other)).toHaveLength(1);
  });

  it("a branch that leads to no ending node is a 400 saying so", async () => {
    const flow = JSON.stringify({
      nodes: [ifElse("return false;"), endingFn("customFunction_0", "return 'yes';", "")],
      edges: [branchEdge("customFunction_0", "returnFalse")],
    });
    // The False output leads to the only ending node; True (taken here) leaves it in.
    expect((await runFlow(flow, makeCtx("x"))).text).toBe("yes");
    const onlyTrue = JSON.stringify({
      nodes: [ifElse("return false;"), endingFn("customFunction_0", "return 'yes';", "")],
      edges: [branchEdge("customFunction_0", "returnTrue")],
    });
    const err = (await runFlow(onlyTrue, makeCtx("x")).catch((e: unknown) => e)) as { status?: number; message?: string };
    expect(err.status).toBe(400);
    expect(err.message).toContain("leads to no Chain, Agent or Engine");
  });
});

describe("setVariable / getVariable", () => {
  /** A function shouting the question → Set Variable "shout"; Get Variable "shout" (listed first, not connected) → the ending function. */
  function variablesFlow(showOutput: boolean, getName = "shout"): string {
    const nodes = [
      node("getVariable_0", "getVariable", "Utilities", { variableName: getName }),
      endingFn(
        "customFunction_1",
        "return `got: ${typeof $v === 'undefined' ? 'nothing' : $v}`;",
        JSON.stringify({ v: "{{getVariable_0.data.instance}}" }),
      ),
      node("customFunction_0", "customFunction", "Utilities", { javascriptFunction: "return $input.toUpperCase() + '!';" }, {
        outputs: { output: "output" },
      } as never),
      node("setVariable_0", "setVariable", "Utilities", {
        input: ["{{customFunction_0.data.instance}}"],
        variableName: "shout",
        showOutput,
      }),
    ];
    return JSON.stringify({
      nodes,
      edges: [
        plainEdge("getVariable_0", "customFunction_1", "functionInputVariables"),
        plainEdge("customFunction_0", "setVariable_0", "input"),
      ],
    });
  }

  it("Get Variable reads what Set Variable kept in this run, whatever the node order; showOutput reports it", async () => {
    const { id } = await json("POST", "/chatflows", { body: { name: "vars", flowData: variablesFlow(true) } });
    const answer = await json("POST", `/prediction/${id}`, { body: { question: "hello" } });
    expect(answer.text).toBe("got: HELLO!");
    expect(answer.flowVariables).toEqual({ shout: "HELLO!" });

    const { id: quiet } = await json("POST", "/chatflows", { body: { name: "vars quiet", flowData: variablesFlow(false) } });
    const plain = await json("POST", `/prediction/${quiet}`, { body: { question: "again" } });
    expect(plain.text).toBe("got: AGAIN!");
    expect(plain).not.toHaveProperty("flowVariables");
  });

  it("a name no Set Variable kept reads as nothing (undefined)", async () => {
    expect((await runFlow(variablesFlow(false, "other"), makeCtx("x"))).text).toBe("got: nothing");
  });
});
