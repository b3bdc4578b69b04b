// edgeflow's own marketplace templates (GET /api/v1/marketplaces/templates), built into
// dist/assets/_edgeflow/templates/templates.json as a static file the worker reads through ASSETS: never in
// the worker's bundle.
//
// Sources: src/services/templates/flows/<name>.json, written by hand in a short form — each node
// its id (`<node name>_<n>`), position, label and the inputs that differ from the node's defaults;
// each edge its source and target, plus the target's input anchor (chatflows) or the source's
// branch (agentflow Condition / Human Input nodes). The worker expands them into Flowise's full
// node data from the catalogue descriptors (src/services/templates/expand.ts), the same way the
// canvas makes a node, so a template holds exactly the catalogue's node names, inputs and anchors.
//
// The build checks every source against the descriptors (a node the catalogue does not list, an
// input name the node lacks, an edge to nothing, an anchor that takes none of the source's
// classes fail it, naming the file) and writes one file: the sources with a stable id each, and
// the descriptors they use (so the file's ETag changes whenever a template's expansion would).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadDescriptors } from "./catalogue.mjs";

const TYPES = { Chatflow: "chatflow", AgentflowV2: "agentflow" };
const BRANCHING = new Set(["conditionAgentflow", "conditionAgentAgentflow", "humanInputAgentflow"]);
// Inputs that hold a component's name, and whose `<name>Config` holds that component's inputs.
const configKeysOf = (d) => (d.inputs ?? []).filter((p) => p.loadConfig).map((p) => `${p.name}Config`);

function fail(file, message) {
  throw new Error(`templates: ${file}: ${message}`);
}

/** A UUID-shaped id from the file name: the same template keeps its id across builds. */
function stableId(file) {
  const h = createHash("sha256").update(`edgeflow-template:${file}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const classesOut = (d, output) => {
  if (!d.outputs?.length) return d.baseClasses;
  const chosen = d.outputs.find((o) => o.name === (output ?? d.outputs[0].name));
  return chosen?.baseClasses ?? [];
};

/** Component names an input names (chat models, tools…), top level and in array items. */
function componentsOf(node, d, used) {
  for (const p of d.inputs ?? []) {
    const value = node.inputs?.[p.name];
    if (p.loadConfig && typeof value === "string" && value) used.add(value);
    if (p.type === "array" && Array.isArray(value))
      for (const item of value)
        for (const sub of p.array ?? []) if (sub.loadConfig && typeof item?.[sub.name] === "string") used.add(item[sub.name]);
  }
}

function checkTemplate(file, t, descriptors) {
  if (typeof t.templateName !== "string" || !t.templateName) fail(file, "templateName is missing");
  if (!TYPES[t.type]) fail(file, `type must be ${Object.keys(TYPES).join(" or ")}`);
  if (typeof t.description !== "string" || !t.description) fail(file, "description is missing");
  if (!Array.isArray(t.usecases) || !t.usecases.length) fail(file, "usecases must list at least one use case");
  const agentflow = t.type === "AgentflowV2";
  const byId = new Map();
  const used = new Set();
  for (const node of t.nodes ?? []) {
    const name = String(node.id).replace(/_\d+$/, "");
    const d = descriptors.get(name);
    if (!/_\d+$/.test(node.id ?? "")) fail(file, `node id ${node.id} is not <node name>_<n>`);
    if (byId.has(node.id)) fail(file, `node id ${node.id} is used twice`);
    if (!d || d.hidden) fail(file, `${node.id}: the catalogue does not list a node ${name}`);
    if ((d.category === "Agent Flows") !== agentflow) fail(file, `${node.id}: a ${d.category} node in a ${t.type}`);
    if (typeof node.position?.x !== "number" || typeof node.position?.y !== "number") fail(file, `${node.id}: position {x, y} is missing`);
    const known = new Set([...(d.inputs ?? []).map((p) => p.name), ...configKeysOf(d)]);
    for (const key of Object.keys(node.inputs ?? {})) if (!known.has(key)) fail(file, `${node.id}: ${name} has no input ${key}`);
    if (node.output !== undefined && !d.outputs?.some((o) => o.name === node.output))
      fail(file, `${node.id}: ${name} has no output ${node.output}`);
    componentsOf(node, d, used);
    used.add(name);
    byId.set(node.id, { node, d });
  }
  if (!byId.size) fail(file, "a template needs nodes");
  for (const e of t.edges ?? []) {
    const source = byId.get(e.source);
    const target = byId.get(e.target);
    if (!source || !target) fail(file, `edge ${e.source} → ${e.target} names a node the template lacks`);
    if (agentflow) {
      if (BRANCHING.has(source.d.name) !== (e.branch !== undefined))
        fail(file, `edge ${e.source} → ${e.target}: a branch index goes with branching nodes only`);
      continue;
    }
    const anchor = (target.d.inputs ?? []).find((p) => p.name === e.input);
    if (!anchor) fail(file, `edge ${e.source} → ${e.target}: ${target.d.name} has no input ${e.input}`);
    const accepts = anchor.type.split("|").map((s) => s.trim());
    if (!classesOut(source.d, source.node.output).some((c) => accepts.includes(c)))
      fail(file, `edge ${e.source} → ${e.target}: ${e.input} takes ${anchor.type}, not ${source.d.name}`);
  }
  for (const name of used) if (!descriptors.has(name)) fail(file, `names a component ${name} the catalogue does not have`);
  return used;
}

/** Builds dist/assets/_edgeflow/templates/templates.json; throws naming the file on any mistake. */
export function buildTemplates(root, assetsDir) {
  const dir = join(root, "src", "services", "templates", "flows");
  const descriptors = new Map([...loadDescriptors(root).values()].map(({ descriptor }) => [descriptor.name, descriptor]));
  const templates = [];
  const used = new Set();
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()) {
    let t;
    try {
      t = JSON.parse(readFileSync(join(dir, file), "utf8"));
    } catch (err) {
      fail(file, `not valid JSON: ${err.message}`);
    }
    for (const name of checkTemplate(file, t, descriptors)) used.add(name);
    templates.push({ id: stableId(file), ...t });
  }
  const served = (name) => {
    const { icon: _icon, hidden: _hidden, ...d } = descriptors.get(name);
    return d;
  };
  const out = JSON.stringify({ templates, descriptors: Object.fromEntries([...used].sort().map((n) => [n, served(n)])) });
  const target = join(assetsDir, "templates", "templates.json");
  if (!existsSync(target) || readFileSync(target, "utf8") !== out) {
    mkdirSync(join(assetsDir, "templates"), { recursive: true });
    writeFileSync(target, out);
  }
  return { templates: templates.length };
}
