// Load methods (POST /node-load-method/{name}) whose answer follows from the catalogue alone,
// computed at build: a model list, or the nodes of a category an agentflow node picks from. The
// worker answers these from catalogue/options/<node>/<method>.json; the others (stored tools,
// flows, document stores, runtime state…) it computes (src/services/catalogue/load-methods/).

const iconUrl = (name) => `/api/v1/node-icon/${name}`;
const notLlamaIndex = (n) => !n.tags?.includes("LlamaIndex");
const asOptions = (nodes) => nodes.map((n) => ({ label: n.label, name: n.name, imageSrc: iconUrl(n.name) }));

// Tools an agentflow Agent cannot hold as a tool of its own (they wrap another node): Flowise leaves them out too.
const NOT_AGENT_TOOLS = new Set(["chainTool", "retrieverTool"]);
const TOOL_CATEGORIES = new Set(["Tools", "Tools (MCP)"]);

/** The catalogue's own answers, by method: (node, listed nodes, model lists) → options, or undefined when not static. */
const METHODS = {
  listModels(node, listed, models) {
    const list = Object.values(models).find((m) => m.nodes.includes(node.name));
    if (list) return list.models;
    if (node.category !== "Agent Flows") return undefined;
    return asOptions(listed.filter((n) => n.category === "Chat Models" && notLlamaIndex(n)));
  },
  listEmbeddings: (_node, listed) => asOptions(listed.filter((n) => n.category === "Embeddings" && notLlamaIndex(n))),
  listVectorStores: (_node, listed) => asOptions(listed.filter((n) => n.category === "Vector Stores" && notLlamaIndex(n))),
  listTools(node, listed) {
    if (node.category !== "Agent Flows") return undefined;
    // Flowise's Agent and Tool nodes offer the MCP tools too (category "Tools (MCP)").
    const tools = listed.filter((n) => TOOL_CATEGORIES.has(n.category) && notLlamaIndex(n) && !NOT_AGENT_TOOLS.has(n.name));
    return asOptions(tools);
  },
};

/** Every load method a node's inputs declare (array items and tabs too). */
export function loadMethodsOf(node) {
  const methods = new Set();
  const visit = (params) => {
    for (const p of params ?? []) {
      if (p.loadMethod) methods.add(p.loadMethod);
      visit(p.array);
      visit(p.tabs);
    }
  };
  visit(node.inputs);
  return [...methods];
}

/** [`<node>/<method>`, options] for every static load method of every node. */
export function* staticOptions(all, listed, models) {
  for (const node of all) {
    for (const method of loadMethodsOf(node)) {
      const options = METHODS[method]?.(node, listed, models);
      if (options) yield [`${node.name}/${method}`, options];
    }
  }
}
