// The studio's node catalogue (GET /api/v1/nodes, /nodes/{name}, /node-icon/{name},
// /components-credentials…), built into dist/assets/catalogue as static files the worker serves
// through ASSETS: the descriptors never enter the worker's bundle.
//
// Sources, all data beside the code they describe:
//   src/engine/**/<family>.catalogue.json          node descriptors keyed by node name, beside the
//                                                  node family (or node file) that registers them;
//   src/services/catalogue/credentials.catalogue.json  the credential types those nodes name;
//   src/providers/{chat,embeddings}/models.catalogue.json  our model lists (listModels);
//   @tabler/icons, @lobehub/icons-static-svg       icons (MIT), named by each descriptor's `icon`.
//
// Written (see docs/studio.md, "The node catalogue"):
//   catalogue/nodes[.<client>].json                the listed nodes (not `hidden`), per client
//   catalogue/node/<name>[.<client>].json          one node, hidden ones included
//   catalogue/options/<name>/<loadMethod>.json     load methods answered from the catalogue itself
//   catalogue/credentials.json, credential/<name>.json, icon/{node,credential}/<name>.svg
//   catalogue/manifest.json                        every node and credential name (for tests)
// Each file is written only when its content changed, so a rebuild keeps the assets' ETags.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { checkDescriptor, checkCredential } from "./catalogue-check.mjs";
import { staticOptions } from "./catalogue-options.mjs";

/** Flowise's client types (`?client=`): inputs and options naming others are left out for one. */
export const CLIENTS = ["agentflowv2", "agentflowsdk"];

// The icon a node gets when its descriptor names none, by category.
const CATEGORY_ICONS = {
  "Chat Models": "tabler:message-chatbot",
  LLMs: "tabler:sparkles",
  Prompts: "tabler:prompt",
  Chains: "tabler:link",
  Memory: "tabler:brain",
  "Output Parsers": "tabler:braces",
  Moderation: "tabler:shield-check",
  Utilities: "tabler:tool",
  Tools: "tabler:tool",
  Agents: "tabler:robot",
  "Document Loaders": "tabler:file-text",
  "Text Splitters": "tabler:scissors",
  Embeddings: "tabler:vector",
  "Vector Stores": "tabler:database",
  "Record Manager": "tabler:list-check",
  Engine: "tabler:engine",
  "Response Synthesizer": "tabler:text-recognition",
  "Agent Flows": "tabler:hierarchy-2",
  "Multi Agents": "tabler:users-group",
  "Sequential Agents": "tabler:arrow-right-circle",
};
const DEFAULT_ICON = "tabler:box";

function findFiles(dir, suffix, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) findFiles(path, suffix, out);
    else if (entry.name.endsWith(suffix)) out.push(path);
  }
  return out.sort();
}

const readJson = (path) => {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`catalogue: ${path} is not valid JSON: ${err.message}`);
  }
};

/** Every node descriptor under src/engine, keyed by name; a name declared twice is an error. */
export function loadDescriptors(root) {
  const nodes = new Map();
  for (const file of findFiles(join(root, "src", "engine"), ".catalogue.json")) {
    for (const [name, descriptor] of Object.entries(readJson(file))) {
      const where = `${relative(root, file)}: ${name}`;
      if (nodes.has(name)) throw new Error(`catalogue: node ${name} is declared twice (${nodes.get(name).file} and ${where})`);
      checkDescriptor(descriptor, where);
      nodes.set(name, { file: relative(root, file), descriptor: { name, ...descriptor } });
    }
  }
  return nodes;
}

/** Flowise's filterNodeByClient: inputs, options, tabs and array items whose `client` list excludes the client go. */
export function forClient(node, client) {
  if (!client || !node.inputs) return node;
  const allowed = (x) => !x.client || x.client.includes(client);
  const param = (p) => ({
    ...p,
    ...(p.options ? { options: p.options.filter(allowed) } : {}),
    ...(p.tabs ? { tabs: p.tabs.filter(allowed).map(param) } : {}),
    ...(p.array ? { array: p.array.filter(allowed).map(param) } : {}),
  });
  return { ...node, inputs: node.inputs.filter(allowed).map(param) };
}

/** The descriptor as the studio gets it: our build-only fields (`icon`, `hidden`) taken out. */
const served = ({ icon: _icon, hidden: _hidden, ...node }) => node;

function iconSource(root, ref, where) {
  const [set, name] = ref.split(":");
  const pkg = { tabler: "@tabler/icons", lobehub: "@lobehub/icons-static-svg" }[set];
  if (!pkg || !name) throw new Error(`catalogue: ${where}: icon "${ref}" is not tabler:<name> or lobehub:<name>`);
  // Their package.json "exports" hide the files from require.resolve: found in node_modules directly.
  const base = join(root, "node_modules", pkg);
  if (!existsSync(join(base, "package.json"))) throw new Error(`catalogue: ${pkg} is not installed; run \`npm install\` first.`);
  const file = join(base, "icons", ...(set === "tabler" ? ["outline", `${name}.svg`] : [`${name}.svg`]));
  if (!existsSync(file)) throw new Error(`catalogue: ${where}: icon "${ref}" has no file (${file})`);
  return file;
}

/** Writes only what changed; returns the paths written, relative to `dir`. */
function writer(dir) {
  const kept = new Set();
  return {
    put(path, content) {
      const target = join(dir, path);
      kept.add(target);
      const bytes = typeof content === "string" ? Buffer.from(content) : content;
      if (existsSync(target) && readFileSync(target).equals(bytes)) return;
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, bytes);
    },
    /** Removes files of an earlier build that this one did not write (a node removed, renamed). */
    prune() {
      if (!existsSync(dir)) return;
      for (const file of findFiles(dir, "")) if (!kept.has(file)) rmSync(file);
    },
  };
}

const json = (value) => JSON.stringify(value);

/** Builds dist/assets/catalogue from the descriptors; throws naming the file and node on any mistake. */
export function buildCatalogue(root, assetsDir) {
  const nodes = loadDescriptors(root);
  const credentials = readJson(join(root, "src", "services", "catalogue", "credentials.catalogue.json"));
  for (const [name, credential] of Object.entries(credentials)) checkCredential(credential, `credentials.catalogue.json: ${name}`);
  const models = {
    ...readJson(join(root, "src", "providers", "chat", "models.catalogue.json")),
    ...Object.fromEntries(
      Object.entries(readJson(join(root, "src", "providers", "embeddings", "models.catalogue.json"))).map(([k, v]) => [
        `embeddings:${k}`,
        v,
      ]),
    ),
  };

  const named = new Set();
  for (const { descriptor, file } of nodes.values()) {
    for (const credentialName of credentialNames(descriptor)) {
      if (!credentials[credentialName])
        throw new Error(
          `catalogue: ${file}: ${descriptor.name} names credential type ${credentialName}, which credentials.catalogue.json lacks`,
        );
      named.add(credentialName);
    }
  }
  // The studio's speech dialogs (docs/speech.md) and its Analyse Chatflow dialog (docs/tracing.md) name
  // these, no node does.
  const dialogs = new Set(["assemblyAIApi", "azureCognitiveServices", "elevenLabsApi", "langsmithApi", "langwatchApi", "lunaryApi"]);
  for (const tracing of ["arizeApi", "phoenixApi", "opikApi"]) dialogs.add(tracing);
  const unused = Object.keys(credentials).filter((n) => !named.has(n) && !dialogs.has(n));
  if (unused.length) throw new Error(`catalogue: credential types no node names: ${unused.join(", ")}`);

  const out = writer(join(assetsDir, "catalogue"));
  const all = [...nodes.values()].map((n) => n.descriptor).sort((a, b) => a.name.localeCompare(b.name));
  const listed = all.filter((n) => !n.hidden);
  for (const client of [undefined, ...CLIENTS]) {
    const suffix = client ? `.${client}` : "";
    out.put(`nodes${suffix}.json`, json(listed.map((n) => forClient(served(n), client))));
    for (const node of all) out.put(`node/${node.name}${suffix}.json`, json(forClient(served(node), client)));
  }
  for (const node of all) {
    const ref = node.icon ?? CATEGORY_ICONS[node.category] ?? DEFAULT_ICON;
    out.put(`icon/node/${node.name}.svg`, readFileSync(iconSource(root, ref, `${node.name}`)));
  }
  const credentialList = Object.entries(credentials)
    .map(([name, { icon: _icon, ...c }]) => ({ ...c, name }))
    .sort((a, b) => a.name.localeCompare(b.name));
  out.put("credentials.json", json(credentialList));
  for (const credential of credentialList) {
    out.put(`credential/${credential.name}.json`, json(credential));
    out.put(
      `icon/credential/${credential.name}.svg`,
      readFileSync(iconSource(root, credentials[credential.name].icon ?? "tabler:key", credential.name)),
    );
  }
  for (const [path, options] of staticOptions(all, listed, models)) out.put(`options/${path}.json`, json(options));
  out.put(
    "manifest.json",
    json({ nodes: all.map((n) => n.name), listed: listed.map((n) => n.name), credentials: credentialList.map((c) => c.name) }),
  );
  out.prune();
  return { nodes: all.length, listed: listed.length, credentials: credentialList.length };
}

/** The credential types a node names: its own `credential` and any credential input. */
export function credentialNames(node) {
  const names = [...(node.credential?.credentialNames ?? [])];
  const visit = (params) => {
    for (const p of params ?? []) {
      if (p.type === "credential") names.push(...(p.credentialNames ?? []));
      visit(p.array);
      visit(p.tabs);
    }
  };
  visit(node.inputs);
  return names;
}
