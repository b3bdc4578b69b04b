// The node catalogue's files, built into the worker's static assets by scripts/lib/catalogue.mjs
// (docs/studio.md, "The node catalogue"): read through ASSETS, never bundled. Conditional reads
// pass If-None-Match on, so a repeat load of the catalogue is a 304 without a body.
import { badRequest, notFound } from "../../errors";
import { fetchAsset } from "../../lib/assets";

/** Flowise's client types (`?client=`); any other value is ignored, as Flowise does. */
export const CLIENTS = ["agentflowv2", "agentflowsdk"] as const;
export type Client = (typeof CLIENTS)[number];

export const asClient = (value: string | undefined): Client | undefined => CLIENTS.find((c) => c === value);

/** A catalogue file to send: its body (none when the caller's copy is current), ETag and type. */
export interface CatalogueFile {
  body: ReadableStream | null;
  etag?: string;
  notModified: boolean;
  contentType: string;
}

/** Node and credential names are identifiers: anything else cannot name a file and is simply unknown. */
const NAME = /^[A-Za-z0-9_-]{1,100}$/;

export interface LoadOption {
  label: string;
  name: string;
  description?: string;
  imageSrc?: string;
}

/** The parts of a node descriptor the worker reads (the catalogue has the rest). */
export interface NodeDescriptor {
  name: string;
  label: string;
  category: string;
  inputs?: NodeParam[];
}

export interface NodeParam {
  name: string;
  type: string;
  loadMethod?: string;
  array?: NodeParam[];
  tabs?: NodeParam[];
}

async function read(path: string, ifNoneMatch?: string): Promise<CatalogueFile | undefined> {
  const res = await fetchAsset(`catalogue/${path}`, ifNoneMatch ? { "if-none-match": ifNoneMatch } : undefined);
  const etag = res.headers.get("etag") ?? undefined;
  const contentType = path.endsWith(".svg") ? "image/svg+xml" : "application/json; charset=utf-8";
  if (res.status === 304 || (res.ok && etag !== undefined && ifNoneMatch !== undefined && matches(ifNoneMatch, etag))) {
    await res.body?.cancel();
    return { body: null, etag, notModified: true, contentType };
  }
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`Catalogue asset ${path} answered ${res.status}`);
  return { body: res.body, etag, notModified: false, contentType };
}

/** If-None-Match holds one ETag, a list, or `*`; weak and strong forms compare alike (RFC 9110 §13.1.2). */
function matches(header: string, etag: string): boolean {
  const bare = (t: string) => t.trim().replace(/^W\//, "");
  return header.split(",").some((t) => t.trim() === "*" || bare(t) === bare(etag));
}

const missing = (what: string, name: string) => notFound(`${what} ${name} not found`);

/** Every node the canvas offers, in Flowise's descriptor shape, for a client. */
export async function nodeList(client: Client | undefined, ifNoneMatch?: string): Promise<CatalogueFile> {
  const file = await read(client ? `nodes.${client}.json` : "nodes.json", ifNoneMatch);
  if (!file) throw new Error("The node catalogue is missing from the assets: build it with `node scripts/build-assets.mjs`");
  return file;
}

export async function nodeFile(name: string, client: Client | undefined, ifNoneMatch?: string): Promise<CatalogueFile> {
  const file = NAME.test(name) ? await read(`node/${name}${client ? `.${client}` : ""}.json`, ifNoneMatch) : undefined;
  if (!file) throw missing("Node", name);
  return file;
}

export async function nodeIcon(name: string, ifNoneMatch?: string): Promise<CatalogueFile> {
  const file = NAME.test(name) ? await read(`icon/node/${name}.svg`, ifNoneMatch) : undefined;
  if (!file) throw missing("Node", name);
  return file;
}

export async function credentialList(ifNoneMatch?: string): Promise<CatalogueFile> {
  const file = await read("credentials.json", ifNoneMatch);
  if (!file) throw new Error("The credential catalogue is missing from the assets: build it with `node scripts/build-assets.mjs`");
  return file;
}

export async function credentialFile(name: string, ifNoneMatch?: string): Promise<CatalogueFile> {
  const file = NAME.test(name) ? await read(`credential/${name}.json`, ifNoneMatch) : undefined;
  if (!file) throw missing("Credential", name);
  return file;
}

export async function credentialIcon(name: string, ifNoneMatch?: string): Promise<CatalogueFile> {
  const file = NAME.test(name) ? await read(`icon/credential/${name}.svg`, ifNoneMatch) : undefined;
  if (!file) throw missing("Credential", name);
  return file;
}

async function readJson<T>(file: CatalogueFile | undefined): Promise<T | undefined> {
  return file?.body ? ((await new Response(file.body).json()) as T) : undefined;
}

/** A node's descriptor, parsed; 404 for a node the catalogue does not have. */
export async function nodeDescriptor(name: string): Promise<NodeDescriptor> {
  const node = await readJson<NodeDescriptor>(NAME.test(name) ? await read(`node/${name}.json`) : undefined);
  if (!node) throw missing("Node", name);
  return node;
}

/** The options the build computed for a node's load method, if it is one the catalogue answers itself. */
export async function builtOptions(node: string, method: string): Promise<LoadOption[] | undefined> {
  if (!NAME.test(method)) throw badRequest(`Unknown load method ${method}`);
  return readJson<LoadOption[]>(await read(`options/${node}/${method}.json`));
}

/** The load methods a node's inputs declare (array items and tabs included). */
export function declaredLoadMethods(node: NodeDescriptor): Set<string> {
  const methods = new Set<string>();
  const visit = (params: NodeParam[] | undefined) => {
    for (const p of params ?? []) {
      if (p.loadMethod) methods.add(p.loadMethod);
      visit(p.array);
      visit(p.tabs);
    }
  };
  visit(node.inputs);
  return methods;
}
