// Graph nodes: Neo4j (Flowise's Graph node: a Neo4j database through the neo4jApi credential, its
// schema read when built, ../../../providers/graph/neo4j) and graphCypherQAChain, which asks a model
// for Cypher, runs it there and answers from the records (../graph-qa).
import { fail } from "../../../errors";
import { Neo4jGraph } from "../../../providers/graph/neo4j/graph";
import { bool, credentialOf, num, str } from "../../core/inputs";
import { type GraphCypherQAInstance, checkCypherPrompt, isGraphCypherQA, isNeo4jGraph, runGraphCypherQA } from "../graph-qa/chain";
import { isChatModel, isPrompt, moderationsOf, requireChatModel } from "../instances";
import type { NodeDefinition } from "../types";
import { chainCanStream } from "./chains";

export const graphNodes: NodeDefinition[] = [
  {
    name: "Neo4j",
    category: "Graph",
    async build({ node, inputs, ctx }) {
      const label = node.data.label;
      const cred = await credentialOf(node, inputs, ctx);
      const url = str(cred.url);
      if (!url) throw fail("MISSING_CREDENTIAL", `${label} needs a neo4jApi credential with the Neo4j url, username and password`);
      const timeoutMs = num(inputs.timeoutMs);
      return Neo4jGraph.initialize({
        url,
        username: str(cred.username) ?? "",
        password: typeof cred.password === "string" ? cred.password : "",
        database: str(inputs.database),
        timeoutMs: timeoutMs && timeoutMs > 0 ? timeoutMs : undefined,
        enhancedSchema: bool(inputs.enhancedSchema),
        policy: { field: "neo4jApi credential url", env: ctx.runtime.providers },
        signal: ctx.signal,
      });
    },
  },
  {
    name: "graphCypherQAChain",
    category: "Chains",
    async build({ node, inputs, ctx, output, ending }) {
      const label = node.data.label;
      const model = requireChatModel(inputs.model, label);
      if (!isNeo4jGraph(inputs.graph)) throw fail("INVALID_FLOW", `${label} needs a Neo4j node connected to its graph input`);
      const cypherPrompt = isPrompt(inputs.cypherPrompt) ? inputs.cypherPrompt : undefined;
      checkCypherPrompt(cypherPrompt, label);
      const chain: GraphCypherQAInstance = {
        kind: "graphCypherQAChain",
        label,
        graph: inputs.graph,
        cypherModel: isChatModel(inputs.cypherModel) ? inputs.cypherModel : model,
        qaModel: isChatModel(inputs.qaModel) ? inputs.qaModel : model,
        cypherPrompt,
        qaPrompt: isPrompt(inputs.qaPrompt) ? inputs.qaPrompt : undefined,
        returnDirect: bool(inputs.returnDirect),
        moderations: moderationsOf(inputs.inputModeration),
      };
      if (output === "outputPrediction" && !ending) {
        // Feeds another node: the answer to the question, now.
        const answer = await runGraphCypherQA(chain, ctx);
        return answer.json ?? answer.text;
      }
      return chain;
    },
    async run(instance, { ctx, sink }) {
      if (isGraphCypherQA(instance)) return runGraphCypherQA(instance, ctx, sink);
      throw fail("INVALID_FLOW", "Graph Cypher QA Chain was not built");
    },
    // returnDirect answers in one token; otherwise the QA model's stream.
    canStream: (node, graph) => chainCanStream(node, graph),
  },
];
