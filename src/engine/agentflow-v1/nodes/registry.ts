// One entry per Flowise V1 node name this runtime runs (multi agents and sequential agents). The
// agentflow node registry (../../agentflow/nodes/registry.ts) includes them, so the translated graph
// runs on the one executor.
import type { V1NodeDef } from "./common";
import { supervisorNode } from "./supervisor";
import { workerNode } from "./worker";

export type { TranslateScope, V1NodeDef } from "./common";

export const v1NodeList: V1NodeDef[] = [supervisorNode, workerNode].map((d) => ({ ...d, translatedOnly: true as const }));

export const v1Defs: ReadonlyMap<string, V1NodeDef> = new Map(v1NodeList.map((d) => [d.name, d]));
