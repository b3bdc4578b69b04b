// POST /node-load-method/{name}: the options of an asyncOptions input, as Flowise's node classes
// answer them. Methods whose answer follows from the catalogue (model lists, the chat model,
// embedding, vector store and tool nodes an agentflow node picks from) were computed at build
// (builtOptions); the ones here read the database or the request (the canvas sends the node's data,
// the nodes before it and the node itself). One entry per method name.
import { and, asc, eq, inArray } from "drizzle-orm";
import { ApiError, badRequest } from "../../errors";
import type { Db, Env } from "../../env";
import {
  MCP_PRESET_NAMES,
  composioOptions,
  NATIVE_MCP_NAMES,
  type Runtime,
  listNativeActions,
  listMcpActions,
  listPresetActions,
  openApiOptions,
  toolName,
} from "../../engine";
import { loadVariables } from "../runs";
import { assistant, chatFlow, documentStore, tool } from "../../db/schema";
import { type LoadOption, type NodeDescriptor, builtOptions, declaredLoadMethods, nodeDescriptor } from "./files";
import type { Deps } from "../deps";
import { authorizedMcpServerTools, authorizedMcpServers } from "../custom-mcp-servers";
import { googleLoaderOptions } from "../../providers/loaders/google/options";
import { workLimits } from "../../lib/limits";

/** What the canvas sends: the node's data plus the method, and for agentflow nodes their neighbours. */
export interface LoadRequest {
  loadMethod?: unknown;
  inputs?: unknown;
  previousNodes?: unknown;
  currentNode?: unknown;
  [key: string]: unknown;
}

interface MethodArgs {
  db: Db;
  env: Env;
  runtime: Runtime;
  node: NodeDescriptor;
  request: LoadRequest;
}

type LoadMethod = (args: MethodArgs) => Promise<LoadOption[]>;

const FLOW_KINDS: Record<string, string> = { CHATFLOW: "Chatflow", AGENTFLOW: "Agentflow V2", MULTIAGENT: "Agentflow V1" };

const record = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function parseJson(value: string | null): unknown {
  try {
    return value ? JSON.parse(value) : undefined;
  } catch {
    return undefined;
  }
}

/** The Start node's state keys, from the nodes before this one (Flowise reads them the same way). */
function runtimeStateKeys({ request }: MethodArgs): Promise<LoadOption[]> {
  const start = list(request.previousNodes)
    .map(record)
    .find((n) => n.name === "startAgentflow");
  const keys = list(record(start?.inputs).startState)
    .map((row) => text(record(row).key))
    .filter((k): k is string => !!k);
  return Promise.resolve([...new Set(keys)].map((key) => ({ label: key, name: key })));
}

const METHODS: Record<string, LoadMethod> = {
  /** openAPIToolkit's Server: the spec's servers (its file, or its link fetched under the outbound policy). */
  listServers: ({ runtime, node, request }) =>
    openApiOptions(record(request.inputs), "servers", { runtime, signal: AbortSignal.timeout(15_000) }, node.label),
  /** openAPIToolkit's Available Endpoints: the spec's operations by Flowise's names. */
  listEndpoints: ({ runtime, node, request }) =>
    openApiOptions(record(request.inputs), "endpoints", { runtime, signal: AbortSignal.timeout(15_000) }, node.label),
  /** Custom MCP's Available Actions: the tools its server lists (through the outbound policy, with the stored variables). */
  async listActions({ db, env, node, request }) {
    const vars = await loadVariables({ db, env });
    return listMcpActions(record(request.inputs), { policy: env, vars, label: node.label, signal: AbortSignal.timeout(15_000) });
  },
  /** Your flows, for Execute Flow: every chatflow and agentflow, by name. */
  async listFlows({ db }) {
    const rows = await db
      .select({ id: chatFlow.id, name: chatFlow.name, type: chatFlow.type })
      .from(chatFlow)
      .where(inArray(chatFlow.type, Object.keys(FLOW_KINDS) as never[]))
      .all();
    return rows
      .map((f) => ({ label: f.name, name: f.id, description: FLOW_KINDS[f.type] ?? f.type }))
      .sort((a, b) => a.label.localeCompare(b.label));
  },

  /** Your flows, for the Chatflow Tool: every chatflow, agentflow and assistant, by name (Flowise's kind names). */
  async listChatflows({ db }) {
    const rows = await db.select({ id: chatFlow.id, name: chatFlow.name, type: chatFlow.type }).from(chatFlow).all();
    const kind = (type: string) =>
      type === "AGENTFLOW" ? "AgentflowV2" : type === "MULTIAGENT" ? "AgentflowV1" : type === "ASSISTANT" ? "Custom Assistant" : "Chatflow";
    return rows.map((f) => ({ label: f.name, name: f.id, description: kind(f.type) })).sort((a, b) => a.label.localeCompare(b.label));
  },
  /** Your agentflows (V2), for Agent as Tool. */
  async listAgentflows({ db }) {
    const rows = await db.select({ id: chatFlow.id, name: chatFlow.name }).from(chatFlow).where(eq(chatFlow.type, "AGENTFLOW")).all();
    return rows.map((f) => ({ label: f.name, name: f.id })).sort((a, b) => a.label.localeCompare(b.label));
  },

  /**
   * Your document stores. Agentflow nodes name one as `id:name` among the upserted ones; the
   * Document Store (Vector) node by id among the upserted; the Document Store loader by id among
   * those with chunks (Flowise lists only SYNC there; an upserted store still has its chunks).
   */
  async listStores({ db, node }) {
    const agentflow = node.category === "Agent Flows";
    const statuses = node.name === "documentStore" ? ["SYNC", "UPSERTED"] : ["UPSERTED"];
    const rows = await db
      .select({ id: documentStore.id, name: documentStore.name, description: documentStore.description })
      .from(documentStore)
      .where(inArray(documentStore.status, statuses as never[]))
      .orderBy(asc(documentStore.name))
      .all();
    return rows.map((s) => ({
      label: s.name,
      name: agentflow ? `${s.id}:${s.name}` : s.id,
      ...(s.description ? { description: s.description } : {}),
    }));
  },

  /** Your saved tools (Tools page), for the Custom Tool node. */
  async listTools({ db }) {
    const rows = await db.select({ id: tool.id, name: tool.name, description: tool.description }).from(tool).orderBy(asc(tool.name)).all();
    return rows.map((t) => ({ label: t.name, name: t.id, ...(t.description ? { description: t.description } : {}) }));
  },

  /** Your assistants, for the OpenAI Assistant node (edgeflow runs its own assistants under that name). */
  async listAssistants({ db }) {
    const rows = await db.select({ id: assistant.id, details: assistant.details }).from(assistant).all();
    return rows.map((a) => {
      const details = record(parseJson(a.details));
      const instructions = text(details.instructions);
      return { label: text(details.name) ?? a.id, name: a.id, ...(instructions ? { description: instructions } : {}) };
    });
  },

  listRuntimeStateKeys: runtimeStateKeys,

  /** The nodes before a Loop, to loop back to (`<id>-<label>`, as the Loop node stores it). */
  listPreviousNodes({ request }) {
    return Promise.resolve(
      list(request.previousNodes)
        .map(record)
        .filter((n) => text(n.id))
        .map((n) => ({ label: text(n.label) ?? String(n.id), name: `${n.id}-${text(n.label) ?? ""}`, description: String(n.id) })),
    );
  },

  /** The arguments of the tool a Tool node runs: a saved tool's schema fields. */
  async listToolInputArgs({ db, request }) {
    const inputs = record(record(request.currentNode).inputs);
    const selected = text(inputs.toolAgentflowSelectedTool) ?? text(inputs.selectedTool);
    const config = record(inputs.toolAgentflowSelectedToolConfig ?? inputs.selectedToolConfig);
    if (selected !== "customTool") return [];
    const id = text(config.selectedTool);
    if (!id) return [];
    const row = await db
      .select({ schema: tool.schema })
      .from(tool)
      .where(and(eq(tool.id, id)))
      .get();
    return list(parseJson(row?.schema ?? null))
      .map(record)
      .filter((p) => text(p.property))
      .map((p) => ({
        label: String(p.property),
        name: String(p.property),
        ...(text(p.description) ? { description: String(p.description) } : {}),
      }));
  },
};

const googleNode = (request: LoadRequest) => ({ credential: request.credential, inputs: record(request.inputs) });
const googleDeps = (env: Env, runtime: Runtime) => ({
  getCredential: runtime.credentials,
  outbound: { OUTBOUND_ALLOW: env.OUTBOUND_ALLOW },
  services: env,
  limits: workLimits(env),
});

/** A node whose method answers differently from the one of the same name above (`<node>/<method>`). */
const NODE_METHODS: Record<string, LoadMethod> = {
  /** The Google loaders' pickers: the credential's files (providers/loaders/google/options.ts); none without one. */
  "googleDrive/listFiles": ({ env, runtime, request }) => googleLoaderOptions("googleDrive", googleNode(request), googleDeps(env, runtime)),
  "googleSheets/listSpreadsheets": ({ env, runtime, request }) =>
    googleLoaderOptions("googleSheets", googleNode(request), googleDeps(env, runtime)),
  /** The MCP presets' Available Actions (pipedreamMCP, browserlessMCP, teradataMCP, supergatewayMCP): their server's tools. */
  ...Object.fromEntries(
    MCP_PRESET_NAMES.map((name): [string, LoadMethod] => [
      `${name}/listActions`,
      async ({ db, env, runtime, node, request }) =>
        listPresetActions(
          name,
          { ...record(request.inputs), credential: request.credential },
          {
            providers: runtime.providers,
            outbound: runtime.outbound,
            getCredential: runtime.credentials,
            vars: await loadVariables({ db, env }),
            label: node.label,
            signal: AbortSignal.timeout(15_000),
          },
        ),
    ]),
  ),
  /** The native MCP servers' Available Actions (sequentialThinkingMCP, …): their tools, no server call. */
  ...Object.fromEntries(NATIVE_MCP_NAMES.map((name): [string, LoadMethod] => [`${name}/listActions`, async () => listNativeActions(name)])),
  /** Composio's apps, an app's actions and its connected accounts, from Composio with the node's composioApi key. */
  ...Object.fromEntries(
    ["listApps", "listActions", "listConnections"].map((method): [string, LoadMethod] => [
      `composio/${method}`,
      ({ runtime, request }) =>
        composioOptions(
          method,
          { ...record(request.inputs), credential: request.credential },
          { runtime, getCredential: runtime.credentials, signal: AbortSignal.timeout(15_000) },
        ),
    ]),
  ),
  /** Custom MCP Server's servers: the ones authorized on the Tools page. */
  "customMcpServerTool/listServers": ({ db }) => authorizedMcpServers({ db }),
  /**
   * Its Available Actions: the tools the chosen server listed when authorized (no call to the server).
   * None chosen, or one not authorized: Flowise's single hint option (`error`), as its node answers.
   */
  async "customMcpServerTool/listActions"({ db, request }) {
    const id = text(record(request.inputs).mcpServerId);
    const tools = id ? ((await authorizedMcpServerTools({ db }, id)) as { name: string; description?: string }[] | undefined) : undefined;
    if (!tools)
      return [{ label: "No Available Actions", name: "error", description: "Select an authorized MCP server first, then refresh" }];
    return tools
      .map((t) => ({ label: t.name.toUpperCase(), name: toolName(t.name), description: (t.description || t.name).slice(0, 1024) }))
      .sort((a, b) => a.name.localeCompare(b.name));
  },
};

/**
 * Declared by nodes the catalogue lists but not answered yet (none today): a 501 says so.
 */
export const NOT_YET = new Set<string>();

/** Every method answered here (for the test that checks each declared method has an answer). */
export const loadMethodNames = (): string[] => Object.keys(METHODS);

/** The options of `request.loadMethod` for node `name`: 404 unknown node, 400 a method it does not declare. */
export async function loadOptions(
  { db, env, runtime }: Deps<"db" | "env" | "runtime">,
  name: string,
  request: LoadRequest,
): Promise<LoadOption[]> {
  const method = text(request.loadMethod);
  if (!method) throw badRequest("loadMethod is required: the name of the node's load method (e.g. listModels)");
  const node = await nodeDescriptor(name);
  if (!declaredLoadMethods(node).has(method)) throw badRequest(`Node ${name} has no load method ${method}`);
  const built = await builtOptions(name, method);
  if (built) return built;
  const run = NODE_METHODS[`${name}/${method}`] ?? METHODS[method];
  if (!run) {
    if (NOT_YET.has(method)) throw notYet(name, method);
    throw new Error(`Load method ${method} of ${name} has no answer: add it to the catalogue's build or to load-methods.ts`);
  }
  return run({ db, env, runtime, node, request });
}

const notYet = (name: string, method: string) => new ApiError(501, `${name}: ${method} is not available yet; type the value instead`);
