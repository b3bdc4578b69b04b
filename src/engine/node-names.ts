// Every node name the engine runs, across its registries: what the studio's node catalogue must
// describe, one descriptor each (test/studio/catalogue-registry.test.ts holds them to it).
import { agentflowNodeNames } from "./agentflow/nodes/registry";
import { v1Defs } from "./agentflow-v1/nodes/registry";
import { ABSORBED } from "./agentflow-v1/translate";
import { registry } from "./chatflow/registry";

export function runnableNodeNames(): string[] {
  return [...new Set([...registry.keys(), ...agentflowNodeNames(), ...v1Defs.keys(), ...ABSORBED])].sort();
}
