// Text splitter nodes: the document store's splitters (src/providers/splitters) under their Flowise
// node names. A splitter is built as a LangChain TextSplitter; the loader it is connected to uses it.
import { buildSplitter, supportedSplitters } from "../../../providers/splitters/registry";
import type { NodeDefinition } from "../types";

const CATEGORY = "Text Splitters";

export const textSplitterNodes: NodeDefinition[] = supportedSplitters().map((name) => ({
  name,
  category: CATEGORY,
  build: async ({ inputs }) => buildSplitter(name, inputs),
}));
