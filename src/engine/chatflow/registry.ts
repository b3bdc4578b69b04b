// One registry entry per Flowise node `name`, assembled from the node families in ./nodes.
// Adding a node is adding one entry to its family's list; adding a family is one line here.
import type { NodeDefinition } from "./types";
import { agentNodes } from "./nodes/agents";
import { retrievalToolAgentNode } from "./nodes/retrieval-tool-agent";
import { assistantNodes } from "./nodes/assistant";
import { chainNodes } from "./nodes/chains";
import { apiChainNodes } from "./nodes/api-chains";
import { cacheNodes } from "./nodes/caches";
import { embeddingCacheNodes } from "./nodes/embedding-caches";
import { chatModelNodes } from "./nodes/chat-models";
import { customFunctionNodes } from "./nodes/custom-function";
import { dataNodes } from "./nodes/data";
import { graphNodes } from "./nodes/graphs";
import { documentLoaderNodes } from "./nodes/document-loaders";
import { codeLoaderNodes } from "./nodes/code-loaders";
import { llamaIndexNodes } from "./nodes/llamaindex";
import { embeddingsNodes } from "./nodes/embeddings";
import { memoryNodes } from "./nodes/memory";
import { redisMemoryNodes } from "./nodes/redis-memory";
import { zepMem0MemoryNodes } from "./nodes/zep-mem0-memory";
import { mongoMemoryNodes } from "./nodes/mongodb-memory";
import { awsNodes } from "./nodes/aws";
import { moderationNodes } from "./nodes/moderation";
import { outputParserNodes } from "./nodes/output-parsers";
import { promptNodes } from "./nodes/prompts";
import { reactAgentNodes } from "./nodes/react";
import { xmlAgentNode } from "./nodes/xml-agent";
import { retrievalNodes } from "./nodes/retrieval";
import { routerChainNodes } from "./nodes/router-chains";
import { vectorDbQaNode } from "./nodes/vector-db-qa";
import { retrieverNodes } from "./nodes/retrievers";
import { textSplitterNodes } from "./nodes/text-splitters";
import { toolNodes } from "./nodes/tools";
import { utilityNodes } from "./nodes/utilities";
import { vectorStoreNodes } from "./nodes/vector-stores";
import { vectaraNodes } from "./nodes/vectara";
import { speechToTextNodes } from "./nodes/speech-to-text";
import { analyticNodes } from "./nodes/analytic";

const families: NodeDefinition[][] = [
  chatModelNodes,
  promptNodes,
  chainNodes,
  apiChainNodes,
  cacheNodes,
  embeddingCacheNodes,
  memoryNodes,
  redisMemoryNodes,
  zepMem0MemoryNodes,
  mongoMemoryNodes,
  awsNodes,
  outputParserNodes,
  moderationNodes,
  utilityNodes,
  toolNodes,
  agentNodes,
  reactAgentNodes,
  [xmlAgentNode],
  [retrievalToolAgentNode],
  assistantNodes,
  documentLoaderNodes,
  codeLoaderNodes,
  textSplitterNodes,
  embeddingsNodes,
  vectorStoreNodes,
  vectaraNodes,
  speechToTextNodes,
  analyticNodes,
  retrievalNodes,
  [vectorDbQaNode],
  routerChainNodes,
  retrieverNodes,
  llamaIndexNodes,
  dataNodes,
  graphNodes,
  customFunctionNodes,
];

function assemble(lists: NodeDefinition[][]): Map<string, NodeDefinition> {
  const map = new Map<string, NodeDefinition>();
  for (const def of lists.flat()) {
    if (map.has(def.name)) throw new Error(`Node ${def.name} is registered twice`);
    map.set(def.name, def);
  }
  return map;
}

export const registry: Map<string, NodeDefinition> = assemble(families);

/** Node names the engine can build, sorted (for messages and the chatflow save warning). */
export const supportedNodeNames = (): string[] => [...registry.keys()].sort();
