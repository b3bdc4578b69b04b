// Every node name the engine runs, across its registries: what the studio's node catalogue must
// describe, one descriptor each (test/studio/catalogue-registry.test.ts holds them to it). Tool
// nodes the tool registry only recognises to refuse are not among them.
import { agentflowNodeNames } from "./agentflow/nodes/registry";
import { v1Defs } from "./agentflow-v1/nodes/registry";
import { ABSORBED } from "./agentflow-v1/translate";
import { registry } from "./chatflow/registry";
import { supportedTools, toolNodeNames } from "./tools/registry";

export function runnableNodeNames(): string[] {
  const usable = new Set(supportedTools());
  const refused = toolNodeNames().filter((n) => !usable.has(n));
  const chatflow = [...registry.keys()].filter((n) => !refused.includes(n));
  return [...new Set([...chatflow, ...agentflowNodeNames(), ...v1Defs.keys(), ...ABSORBED])].sort();
}
