// ifElseFunction (Flowise's "IfElse Function", Utilities): `ifFunction` runs in the QuickJS sandbox
// (as the Custom JS Function: `$input`, `$<name>` per functionInputVariables entry, `$vars`, `$flow`);
// a truthy result takes the True output (returnTrue) with that value, else `elseFunction` runs and
// its result takes the False output (returnFalse). The value is the node's instance for the nodes
// behind the output taken; the nodes behind the other one are not built (../branches.ts), and the
// run answers with the ending node left in.
import { fail } from "../../../errors";
import type { FlowNode } from "../../core/types";
import type { BranchTaken, NodeDefinition } from "../types";
import { runNodeCode, variablesOf } from "./custom-function";

interface Decided {
  kind: "ifElseFunction";
  value: unknown;
  took: boolean;
}

const owner = (node: FlowNode) => `${node.data.label} (${node.id})`;
const codeOf = (v: unknown) => (typeof v === "string" && v.trim() ? v : undefined);

export const ifElseNode: NodeDefinition = {
  name: "ifElseFunction",
  category: "Utilities",
  async build({ node, inputs, ctx }): Promise<Decided> {
    const ifCode = codeOf(inputs.ifFunction);
    if (!ifCode) throw fail("INVALID_FLOW", `${owner(node)} has no If Function (ifFunction)`);
    const variables = variablesOf(inputs.functionInputVariables, node, "IfElse's");
    const yes = await runNodeCode(node, ifCode, variables, ctx);
    if (yes) return { kind: "ifElseFunction", value: yes, took: true };
    const elseCode = codeOf(inputs.elseFunction);
    return { kind: "ifElseFunction", value: elseCode ? await runNodeCode(node, elseCode, variables, ctx) : undefined, took: false };
  },
  branch(built): BranchTaken {
    const decided = built as Decided;
    return { instance: decided.value, untaken: decided.took ? "returnFalse" : "returnTrue" };
  },
};
