/// <reference types="vite/client" />
// The catalogue against Flowise 3.1.4's 51 marketplace flows (the fixtures the engine tests run:
// 24 chatflows, 13 Agentflow V2, 14 Agentflow V1): every node they use is offered, and every input
// they hold (inputParams), every input anchor and every output anchor agrees with the catalogue's
// descriptor — names, types, options' output classes — so a flow moves between the two.
import { describe, expect, it } from "vitest";
import { json } from "../helpers";

type Param = { name: string; type: string; credentialNames?: string[] };
type Output = { name: string; type?: string; options?: { name: string; type: string }[] };
type FlowNode = { data: { name: string; inputParams?: Param[]; inputAnchors?: Param[]; outputAnchors?: Output[] } };
type Descriptor = {
  name: string;
  baseClasses: string[];
  inputs?: Param[];
  outputs?: { name: string; baseClasses?: string[] }[];
  credential?: { credentialNames: string[] };
};

const flows = {
  ...import.meta.glob<{ nodes: FlowNode[] }>("../engine/fixtures/*.json", { eager: true, import: "default" }),
  ...import.meta.glob<{ nodes: FlowNode[] }>("../agentflow/fixtures/templates/*.json", { eager: true, import: "default" }),
  ...import.meta.glob<{ nodes: FlowNode[] }>("../agentflow-v1/fixtures/*.json", { eager: true, import: "default" }),
};

// Inputs a template holds that Flowise 3.1.4's own descriptor of the node no longer has: the
// template was saved with an older version of the node (its `version` is lower), so Flowise's own
// catalogue disagrees with it in the same way. Anything else must agree.
const OLDER_VERSION_INPUTS = new Set([
  "chatOpenAI.imageResolution", // chatOpenAI 6 (3.1.4 is 8.3)
  "chatOpenAI.proxyUrl", // chatOpenAI 8.2
  "azureChatOpenAI.imageResolution", // azureChatOpenAI 4 (3.1.4 is 7.1)
  "chatOllama.numGqa", // chatOllama 2 (3.1.4 is 5)
  "openAPIToolkit.yamlFile", // openAPIToolkit 2 (3.1.4 is 2.1: openApiFile / openApiLink)
  "pinecone.searchType", // pinecone 3 and 4 (3.1.4 is 5)
  "pinecone.fetchK",
  "pinecone.lambda",
  "httpAgentflow.body", // httpAgentflow 1.1 kept the body as a string; 3.1.4's is an array of fields
]);

// Condition nodes' outputs are the conditions the flow's author wrote: not part of any descriptor.
const USER_DEFINED_OUTPUTS = new Set(["seqCondition", "seqConditionAgent"]);

const parts = (type: string) => type.split(" | ").map((t) => t.trim());

describe("the catalogue against Flowise's marketplace flows", () => {
  it("has all 51 flows to compare with", () => {
    expect(Object.keys(flows)).toHaveLength(51);
  });

  it("offers every node they use, with every input name, type and anchor class they hold", async () => {
    const listed = new Map((await json<Descriptor[]>("GET", "/nodes")).map((n) => [n.name, n]));
    const problems: string[] = [];
    let compared = 0;
    for (const [file, flow] of Object.entries(flows)) {
      for (const { data } of flow.nodes) {
        const node = listed.get(data.name);
        const at = `${file.split("/").pop()}: ${data.name}`;
        if (!node) {
          problems.push(`${at}: not in the catalogue`);
          continue;
        }
        compared++;
        const inputs = new Map((node.inputs ?? []).map((i) => [i.name, i]));
        for (const p of data.inputParams ?? []) {
          if (p.type === "credential") {
            const missing = (p.credentialNames ?? []).filter((n) => !node.credential?.credentialNames.includes(n));
            if (missing.length) problems.push(`${at}: credential ${missing.join(", ")} not accepted`);
            continue;
          }
          if (OLDER_VERSION_INPUTS.has(`${data.name}.${p.name}`)) continue;
          const mine = inputs.get(p.name);
          if (!mine) problems.push(`${at}: input ${p.name} missing`);
          else if (mine.type !== p.type) problems.push(`${at}: input ${p.name} is ${mine.type}, the flow's ${p.type}`);
        }
        for (const a of data.inputAnchors ?? []) {
          const mine = inputs.get(a.name);
          if (!mine) problems.push(`${at}: anchor ${a.name} missing`);
          else if (!parts(a.type).every((t) => parts(mine.type).includes(t)))
            problems.push(`${at}: anchor ${a.name} takes ${mine.type}, not ${a.type}`);
        }
        if (USER_DEFINED_OUTPUTS.has(data.name)) continue;
        for (const o of data.outputAnchors ?? []) {
          if (o.type === "options") {
            for (const option of o.options ?? []) {
              const mine = node.outputs?.find((x) => x.name === option.name);
              if (!mine) problems.push(`${at}: output ${option.name} missing`);
              else if (!parts(option.type).every((t) => mine.baseClasses?.includes(t)))
                problems.push(`${at}: output ${option.name} gives ${mine.baseClasses}, the flow's ${option.type}`);
            }
          } else if (o.type && !parts(o.type).every((t) => node.baseClasses.includes(t))) {
            problems.push(`${at}: output is ${node.baseClasses.join(" | ")}, the flow's ${o.type}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    expect(compared).toBeGreaterThan(300);
  });
});
