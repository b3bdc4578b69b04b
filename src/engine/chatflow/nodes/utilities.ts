// Utility nodes. Sticky notes are comments: the planner never builds them, but they are known.
// Set Variable keeps a value for the rest of the run (the run's flow state; `showOutput` also
// reports it in the answer's `flowVariables`); Get Variable reads it back by name (undefined when
// no Set Variable of that name ran before it). The IfElse Function is in ./if-else.ts.
import { bool } from "../../core/inputs";
import type { NodeDefinition } from "../types";
import { ifElseNode } from "./if-else";

const nameOf = (v: unknown) => (typeof v === "string" ? v.trim() : "");

export const utilityNodes: NodeDefinition[] = [
  { name: "stickyNote", category: "Utilities", build: async () => undefined },
  {
    name: "setVariable",
    category: "Utilities",
    async build({ inputs, flowState }) {
      const raw = inputs.input;
      const value = Array.isArray(raw) && raw.length === 1 ? raw[0] : raw;
      const name = nameOf(inputs.variableName);
      if (flowState && name) {
        flowState.variables[name] = value;
        if (bool(inputs.showOutput)) flowState.shown[name] = value;
      }
      return value;
    },
  },
  {
    name: "getVariable",
    category: "Utilities",
    async build({ inputs, flowState }) {
      const name = nameOf(inputs.variableName);
      return flowState && Object.hasOwn(flowState.variables, name) ? flowState.variables[name] : undefined;
    },
  },
  ifElseNode,
];
