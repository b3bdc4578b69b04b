// Shape checks of the catalogue's data files (scripts/lib/catalogue.mjs): a typo in a descriptor
// fails the build naming the file and node, instead of reaching the canvas as a broken node.

const NODE_KEYS = new Set([
  "label",
  "version",
  "type",
  "category",
  "description",
  "baseClasses",
  "tags",
  "color",
  "hideInput",
  "hideOutput",
  "credential",
  "inputs",
  "outputs",
  "icon",
  "hidden",
]);

const isText = (v) => typeof v === "string" && v.length > 0;
const isTextList = (v) => Array.isArray(v) && v.length > 0 && v.every(isText);

function fail(where, message) {
  throw new Error(`catalogue: ${where}: ${message}`);
}

function checkOptions(options, where) {
  if (!Array.isArray(options)) fail(where, "options must be a list");
  for (const o of options) if (!isText(o?.label) || !isText(o?.name)) fail(where, "every option needs a label and a name");
}

function checkParams(params, where) {
  if (!Array.isArray(params)) fail(where, "inputs must be a list");
  const seen = new Set();
  for (const p of params) {
    const at = `${where}.${p?.name ?? "?"}`;
    if (typeof p?.label !== "string" || !isText(p?.name) || !isText(p?.type)) fail(at, "every input needs label, name and type");
    // One name twice is Flowise's way of showing another field per choice: allowed when shown conditionally.
    const conditional = p.show !== undefined || p.hide !== undefined;
    if (seen.has(p.name) && !conditional) fail(at, "input name used twice");
    if (!conditional) seen.add(p.name);
    if (p.description !== undefined && !isText(p.description)) fail(at, "description must be text");
    if (p.options !== undefined) checkOptions(p.options, at);
    if (p.loadMethod !== undefined && !isText(p.loadMethod)) fail(at, "loadMethod must be a method name");
    if (p.loadMethod && !/^async(Multi)?Options$/.test(p.type) && p.type !== "datagrid")
      fail(at, `loadMethod on an input of type ${p.type} (asyncOptions or asyncMultiOptions expected)`);
    if (p.type === "credential" && !isTextList(p.credentialNames)) fail(at, "a credential input needs credentialNames");
    if (p.array !== undefined) checkParams(p.array, at);
    if (p.tabs !== undefined) checkParams(p.tabs, at);
  }
}

export function checkDescriptor(d, where) {
  if (!d || typeof d !== "object" || Array.isArray(d)) fail(where, "a descriptor must be an object");
  for (const key of Object.keys(d)) if (!NODE_KEYS.has(key)) fail(where, `unknown field "${key}"`);
  for (const key of ["label", "type", "category", "description"]) if (!isText(d[key])) fail(where, `${key} must be text`);
  if (typeof d.version !== "number") fail(where, "version must be a number");
  if (!isTextList(d.baseClasses)) fail(where, "baseClasses must be a non-empty list of names");
  if (d.hidden !== undefined && typeof d.hidden !== "boolean") fail(where, "hidden must be true or false");
  if (d.icon !== undefined && !isText(d.icon)) fail(where, "icon must be tabler:<name> or lobehub:<name>");
  if (d.credential !== undefined) {
    const c = d.credential;
    if (c.type !== "credential" || !isText(c.name) || !isText(c.label) || !isTextList(c.credentialNames))
      fail(where, "credential needs label, name, type credential and credentialNames");
  }
  checkParams(d.inputs ?? [], `${where} inputs`);
  for (const o of d.outputs ?? []) {
    if (typeof o?.label !== "string" || typeof o?.name !== "string") fail(where, "every output needs a label and a name");
    if (o.baseClasses !== undefined && !isTextList(o.baseClasses)) fail(where, "an output's baseClasses must be a list of names");
  }
}

export function checkCredential(c, where) {
  if (!isText(c?.label) || !isText(c?.description)) fail(where, "a credential type needs a label and a description");
  checkParams(c.inputs ?? [], `${where} inputs`);
}
