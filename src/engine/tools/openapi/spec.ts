// An OpenAPI document (YAML or JSON) read into the operations a toolkit turns into tools: each
// operation's id, description, path/query parameters and JSON request body, with local $refs
// ("#/components/…") resolved. Bounded: the spec's size, its operations, the depth of its refs.
import { parse } from "yaml";
import { fail } from "../../../errors";
import { decodeFlowiseDataUri } from "../../../providers/loaders/data-uri";
import { isObject } from "../../core/inputs";
import { errorMessage } from "../../../lib/error-message";

/** Largest spec read (a YAML file as the node carries it). */
const MAX_SPEC_BYTES = 1024 * 1024;
/** Most operations one toolkit offers (the chat completions API takes at most 128 tools). */
const MAX_OPERATIONS = 128;
/** How deep resolved $refs may nest (a recursive schema stops there as an open object). */
const MAX_REF_DEPTH = 12;
const MAX_NESTING = 64;

const METHODS = ["get", "post", "put", "patch", "delete", "head", "options"] as const;
type Method = (typeof METHODS)[number];

type Json = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: "path" | "query";
  required: boolean;
  description?: string;
  schema: Json;
}

export interface Operation {
  /** operationId, else method + path ("get_pets_petId"). */
  id: string;
  /** Flowise's name for it in Available Endpoints (selectedEndpoints): operationId, else "GET /pets/{petId}". */
  endpoint: string;
  method: Method;
  /** The path as the spec writes it ("/pets/{petId}"). */
  path: string;
  description: string;
  parameters: Parameter[];
  /** The JSON (or form) request body's schema, when the operation takes one. */
  body?: { schema?: Json; required: boolean };
}

export interface OpenApiSpec {
  /** servers[0].url, when the spec names one. */
  server?: string;
  /** Every server's url (its variables at their defaults), for the canvas's Server input. */
  servers: string[];
  operations: Operation[];
}

/** The spec's text from the node's yamlFile input: a Flowise data URI, or the YAML/JSON text itself. */
export function specText(value: unknown, where: string): string {
  if (typeof value !== "string" || !value.trim()) throw fail("INVALID_FLOW", `${where} needs an OpenAPI spec: upload one in yamlFile`);
  const text = value.trim();
  if (text.startsWith("FILE-STORAGE::")) {
    throw fail(
      "INVALID_FLOW",
      `${where}: its yamlFile names stored files (${text.slice(0, 80)}); give the spec in the flow as a data URI or as text`,
    );
  }
  const body = text.startsWith("data:") ? new TextDecoder().decode(decodeFlowiseDataUri(text).bytes) : text;
  if (body.length > MAX_SPEC_BYTES) throw fail("INVALID_FLOW", `${where}: its OpenAPI spec is over ${MAX_SPEC_BYTES / 1024} KiB`);
  return body;
}

/** Resolves local $refs (JSON pointers into the document); others stay as open schemas. */
function resolver(doc: Json, where: string) {
  const pointer = (ref: string): unknown => {
    let at: unknown = doc;
    for (const raw of ref.slice(2).split("/")) {
      const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      if (!isObject(at) && !Array.isArray(at)) return undefined;
      at = (at as Json)[key];
    }
    return at;
  };
  // `nest` bounds plain nesting too: YAML aliases can make a document that contains itself.
  const resolve = (value: unknown, depth = 0, nest = 0): unknown => {
    if (nest > MAX_NESTING) return {};
    if (Array.isArray(value)) return value.map((v) => resolve(v, depth, nest + 1));
    if (!isObject(value)) return value;
    if (typeof value.$ref === "string") {
      if (depth >= MAX_REF_DEPTH || !value.$ref.startsWith("#/")) return {};
      const target = pointer(value.$ref);
      if (target === undefined) throw fail("INVALID_FLOW", `${where}: its OpenAPI spec refers to ${value.$ref}, which it does not hold`);
      return resolve(target, depth + 1, nest + 1);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, depth, nest + 1)]));
  };
  return resolve;
}

const operationId = (method: string, path: string) =>
  `${method}_${path
    .replace(/[{}]/g, "")
    .replace(/[^a-zA-Z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")}`;

function parametersOf(list: unknown[], where: string, id: string): Parameter[] {
  const out: Parameter[] = [];
  for (const p of list) {
    if (!isObject(p) || typeof p.name !== "string" || (p.in !== "path" && p.in !== "query")) continue;
    const schema = isObject(p.schema) ? p.schema : { type: "string" };
    out.push({
      name: p.name,
      in: p.in,
      required: p.in === "path" || p.required === true,
      description: typeof p.description === "string" ? p.description : undefined,
      schema,
    });
  }
  const names = new Set<string>();
  for (const p of out) {
    if (names.has(`${p.in}:${p.name}`))
      throw fail("INVALID_FLOW", `${where}: operation ${id} declares the ${p.in} parameter ${p.name} twice`);
    names.add(`${p.in}:${p.name}`);
  }
  return out;
}

const BODY_TYPES = ["application/json", "application/x-www-form-urlencoded", "multipart/form-data", "text/plain"];

function bodyOf(requestBody: unknown): Operation["body"] {
  if (!isObject(requestBody)) return undefined;
  const content = isObject(requestBody.content) ? requestBody.content : {};
  const type = BODY_TYPES.find((t) => isObject(content[t])) ?? Object.keys(content).find((t) => /json/i.test(t));
  const media = type ? (content[type] as Json) : undefined;
  return { schema: isObject(media?.schema) ? media.schema : undefined, required: requestBody.required === true };
}

/** Parses and checks a spec: 400 naming the node when it is not an OpenAPI document with operations. */
export function parseSpec(text: string, where: string): OpenApiSpec {
  let raw: unknown;
  try {
    // YAML is a superset of JSON, so JSON specs parse here too; aliases are capped against blow-ups.
    raw = parse(text, { maxAliasCount: 100, prettyErrors: false });
  } catch (err) {
    throw fail("INVALID_FLOW", `${where}: its OpenAPI spec is not valid YAML or JSON (${errorMessage(err).split("\n")[0]})`);
  }
  if (!isObject(raw) || !isObject(raw.paths)) throw fail("INVALID_FLOW", `${where}: its OpenAPI spec has no paths`);
  const resolve = resolver(raw, where);
  const servers = Array.isArray(raw.servers) ? raw.servers : [];
  // Server variables ({region}) take their defaults.
  const urlOf = (s: Record<string, unknown>) => {
    const vars = isObject(s.variables) ? s.variables : {};
    return (s.url as string).replace(/\{([^}]+)\}/g, (whole, name: string) => {
      const v = vars[name];
      return isObject(v) && (typeof v.default === "string" || typeof v.default === "number") ? String(v.default) : whole;
    });
  };
  const urls = servers.filter((s): s is Record<string, unknown> => isObject(s) && typeof s.url === "string").map(urlOf);
  const server = isObject(servers[0]) && typeof servers[0].url === "string" ? urls[0] : undefined;

  const operations: Operation[] = [];
  const ids = new Set<string>();
  for (const [path, rawItem] of Object.entries(raw.paths)) {
    const item = resolve(rawItem);
    if (!isObject(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const named = typeof op.operationId === "string" && op.operationId.trim() ? op.operationId.trim() : undefined;
      const id = named ?? operationId(method, path);
      if (ids.has(id)) throw fail("INVALID_FLOW", `${where}: its OpenAPI spec has two operations with the id ${id}`);
      ids.add(id);
      // An operation's own parameter replaces a path-level one of the same name and place.
      const own = Array.isArray(op.parameters) ? op.parameters : [];
      const key = (p: unknown) => (isObject(p) ? `${p.in}:${p.name}` : "");
      const ownKeys = new Set(own.map(key));
      const params = parametersOf([...shared.filter((p) => !ownKeys.has(key(p))), ...own], where, id);
      const description = [op.description, op.summary].find((d): d is string => typeof d === "string" && !!d.trim()) ?? id;
      operations.push({
        id,
        endpoint: named ?? `${method.toUpperCase()} ${path}`,
        method,
        path,
        description: description.trim(),
        parameters: params,
        body: bodyOf(op.requestBody),
      });
      if (operations.length > MAX_OPERATIONS)
        throw fail("INVALID_FLOW", `${where}: its OpenAPI spec has more than ${MAX_OPERATIONS} operations`);
    }
  }
  if (!operations.length) throw fail("INVALID_FLOW", `${where}: its OpenAPI spec has no operations`);
  return { server, servers: urls, operations };
}
