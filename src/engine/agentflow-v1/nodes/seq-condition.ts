// seqCondition and seqConditionAgent: decisions whose branches are the node's output routes (in
// its outputAnchors' order), plus one leading nowhere when no route matches (Flowise's "End"
// without an edge). The route is the first condition row that holds (`$flow.state.x`,
// `$flow.output.x`, `$vars.x`, `$<nodeId>` = that node's last message), or what the condition
// code returns (sandboxed); the Condition Agent first asks its model (structured output optional).
import { fail } from "../../../errors";
import { contentText } from "../../../providers/chat/messages";
import type { FlowNode } from "../../core/types";
import { callChat } from "../../agentflow/model-call";
import type { NodeRuntime } from "../../agentflow/node-types";
import { runFunction } from "../../agentflow/nodes/custom-function";
import { structuredSchema } from "../../agentflow/structured";
import { isObject, listOf, nonBlank } from "../../agentflow/util";
import { modelOf, ownerOf, resolveV1 } from "../components";
import type { V1Node } from "../types";
import { type TranslateScope, type Translated, type V1NodeDef, reasoning, routeBranches, toMessages } from "./common";
import { flowOf, flowValue, said, seqName, seqPrompt, structuredAnswer, structuredRows } from "./seq-common";

const isNumeric = (s: string) => /^-?\d*\.?\d+$/.test(s);

/** Flowise's checkCondition. */
function holds(input: unknown, operation: string, value: unknown = ""): boolean {
  if (!input && input !== 0) return operation === "Is Empty";
  const a = typeof input === "object" ? JSON.stringify(input) : String(input);
  const b = String(value ?? "");
  const na = typeof input === "number" ? input : isNumeric(a) ? parseFloat(a) : NaN;
  const nb = isNumeric(b) ? parseFloat(b) : NaN;
  const numeric = (f: (x: number, y: number) => boolean) => !isNaN(na) && !isNaN(nb) && f(na, nb);
  const ops: Record<string, () => boolean> = {
    Contains: () => a.includes(b),
    "Not Contains": () => !a.includes(b),
    "Start With": () => a.startsWith(b),
    "End With": () => a.endsWith(b),
    Is: () => a === b,
    "Is Not": () => a !== b,
    "Is Empty": () => a.trim().length === 0,
    "Is Not Empty": () => a.trim().length > 0,
    "Greater Than": () => numeric((x, y) => x > y),
    "Less Than": () => numeric((x, y) => x < y),
    "Equal To": () => numeric((x, y) => x === y),
    "Not Equal To": () => numeric((x, y) => x !== y),
    "Greater Than or Equal To": () => numeric((x, y) => x >= y),
    "Less Than or Equal To": () => numeric((x, y) => x <= y),
  };
  return ops[operation]?.() ?? false;
}

function translateRoutes(node: FlowNode, scope: TranslateScope): Translated {
  const anchors = Array.isArray(node.data.outputAnchors)
    ? (node.data.outputAnchors as Array<{ options?: Array<{ id?: string; label?: string }> }>)
    : [];
  const options = (anchors[0]?.options ?? []).filter((o) => typeof o.id === "string");
  const edges = scope.edgesFrom(node.id);
  if (!edges.length || !options.length)
    scope.errors.push(`${node.data.label} (${node.id}) has no routes: connect its outputs to the nodes each route leads to`);
  const handles = new Map(
    edges.map((e) => {
      const i = options.findIndex((o) => o.id === e.sourceHandle);
      if (i < 0)
        scope.errors.push(
          `The edge from ${node.data.label} (${node.id}) to ${e.target} leaves from ${e.sourceHandle}, which is none of its routes`,
        );
      return [e, `${node.id}-output-${Math.max(i, 0)}`];
    }),
  );
  return {
    label: seqName(node.data.inputs, node.data.label),
    inputs: { v1Branches: options.length + 1 },
    handles,
    info: { routes: options.map((o) => String(o.label ?? "")) },
  };
}

/** The route the condition rows (or code) choose; "End" when none holds. */
async function chooseRoute(
  inputs: Record<string, unknown>,
  rt: NodeRuntime,
  input: string | undefined,
  output: unknown,
  owner: string,
): Promise<string> {
  const code = nonBlank(inputs.conditionFunction);
  const tab = String(Object.entries(inputs).find(([k]) => k.startsWith("selectedConditionFunctionTab"))?.[1] ?? "conditionUI");
  if (tab.startsWith("conditionFunction") && code) {
    const route = await runFunction(code, input, {}, rt, { output });
    return route.trim();
  }
  const flow = flowOf(rt, input, output);
  for (const row of listOf(inputs.conditionUI).filter(isObject)) {
    const variable = nonBlank(row.variable);
    if (!variable) throw fail("INVALID_FLOW", `${owner}: a condition needs a variable`);
    const value =
      variable.startsWith("$flow.") || variable.startsWith("$vars.")
        ? flowValue(variable, flow)
        : [...rt.runtimeChatHistory].reverse().find((m) => m.additional_kwargs?.nodeId === variable.slice(1))?.content;
    if (holds(value, String(row.operation ?? ""), row.value)) return String(row.output ?? "");
  }
  return "End";
}

function decided(node: V1Node, route: string) {
  const routes = node.data.v1.routes ?? [];
  const at = routes.indexOf(route);
  return [...routes.map((r, i) => ({ route: r, isFulfilled: i === at })), { route: "(no route)", isFulfilled: at < 0 }];
}

export const seqConditionNode: V1NodeDef = {
  name: "seqCondition",
  mode: "sequential",
  variableParams: [],
  branches: routeBranches,
  translate: translateRoutes,
  async run({ node, input, rt }) {
    const v1 = node as V1Node;
    const { inputs } = await resolveV1(v1, rt, input);
    const route = await chooseRoute(inputs, rt, input, undefined, ownerOf(node));
    return {
      id: node.id,
      name: node.data.name,
      input: { conditionUI: inputs.conditionUI },
      output: {
        content: route,
        route,
        conditions: decided(v1, route),
        ...reasoning({ agentName: node.data.label, messages: [route], nodeName: "seqCondition", nodeId: node.id }),
      },
      state: rt.state,
    };
  },
};

export const seqConditionAgentNode: V1NodeDef = {
  name: "seqConditionAgent",
  mode: "sequential",
  variableParams: [],
  branches: routeBranches,
  translate: translateRoutes,
  async run({ node, input, rt }) {
    const v1 = node as V1Node;
    const owner = ownerOf(node);
    const { inputs } = await resolveV1(v1, rt, input);
    const model = modelOf(v1, inputs);
    const prompt = seqPrompt(v1, inputs, rt, input);
    const schema = structuredSchema(structuredRows(inputs.conditionAgentStructuredOutput), owner);
    const output: Record<string, unknown> = schema
      ? await structuredAnswer(model, toMessages(prompt), schema, owner, rt.signal)
      : { content: contentText((await callChat(model, toMessages(prompt), rt.signal)).content) };
    const route = await chooseRoute(inputs, rt, input, output, owner);
    const content = String(output.content);
    return {
      id: node.id,
      name: node.data.name,
      input: { messages: prompt },
      output: {
        ...output,
        route,
        conditions: decided(v1, route),
        ...reasoning({ agentName: node.data.label, messages: [content], nodeName: "seqConditionAgent", nodeId: node.id, state: {} }),
      },
      state: rt.state,
      chatHistory: [said(v1, content)],
    };
  },
};
