// POST /vector/upsert/{chatflowid}, without HTTP: runs the chatflow's loader → splitter →
// embeddings → vector store branch (the engine's runUpsert), with uploaded files going to the
// loader input their extension names (as Flowise maps them: .txt → txtFile, .pdf → pdfFile, …),
// keeps the files in R2 under <chatflowid>/, and records an upsert history row.
import { eq } from "drizzle-orm";
import { chatFlow } from "../db/schema";
import { badRequest, notFound } from "../errors";
import {
  type UpsertCounts,
  type UpsertPlan,
  assertUpsertSupported,
  chatflowFileKey,
  checkLoaderFile,
  createRunContext,
  loaderFileField,
  planFlowUpsert,
  runUpsert,
} from "../engine";
import { newId } from "../lib/ids";
import { loaderDefinition, loaderForFile } from "../providers/loaders/registry";
import { extensionOf } from "../providers/loaders/text-util";
import type { LoaderFile } from "../providers/loaders/types";
import { safeFileName } from "./document-store/files";
import { ADDED_DOCS_LIMIT } from "./document-store/indexing";
import { gateNodeOverrides, gateVarOverrides, loadVariables } from "./runs";
import { recordUpsert } from "./upsert-history";
import type { Deps } from "./deps";

export type ChatflowRow = typeof chatFlow.$inferSelect;

export interface VectorUpsertRequest {
  stopNodeId?: string;
  overrideConfig?: Record<string, unknown>;
}

export type VectorUpsertResult = UpsertCounts;

/** The chatflow to upsert into; 404 when the id names none (assistants have no vector stores). */
export async function findChatflow({ db }: Deps<"db">, id: string): Promise<ChatflowRow> {
  const flow = await db.select().from(chatFlow).where(eq(chatFlow.id, id)).get();
  if (!flow) throw notFound(`Chatflow ${id} not found`);
  return flow;
}

/**
 * Uploaded files by the loader input they go to. Each file's extension names a loader (Flowise's
 * mapping; anything unknown is text): 400 when the branch has no loader of that kind, 413 / 415
 * when the file is too large or not something that loader reads. Checked before anything runs.
 */
function filesByInput(plan: UpsertPlan, uploads: LoaderFile[], maxBytes: number): Record<string, LoaderFile[]> {
  const branchLoaders = plan.order.filter((n) => loaderFileField(n.data.name));
  const out: Record<string, LoaderFile[]> = {};
  for (const upload of uploads) {
    const file = { ...upload, name: safeFileName(upload.name) };
    let loader = loaderForFile(file.name);
    let field = loaderFileField(loader)!;
    // A loader that reads any kind (fileLoader, unstructuredFileLoader) takes what no loader of its kind here reads.
    const anyKind = branchLoaders.find((n) => loaderDefinition(n.data.name).anyUpload);
    if (anyKind && !branchLoaders.some((n) => loaderFileField(n.data.name) === field)) {
      loader = anyKind.data.name;
      field = loaderFileField(loader)!;
    }
    if (!branchLoaders.some((n) => loaderFileField(n.data.name) === field)) {
      const ext = extensionOf(file.name);
      const have = branchLoaders.length
        ? `its file loaders: ${branchLoaders.map((n) => `${n.id} (${n.data.name})`).join(", ")}`
        : "it has no file loader";
      throw badRequest(
        `No document loader of this upsert reads ${file.name}: ${
          ext ? `a .${ext} file` : "a file without an " + "extension"
        } goes to a ${loader} loader (its ${field} input), and ${have}`,
      );
    }
    checkLoaderFile(loader, file, maxBytes);
    (out[field] ??= []).push(file);
  }
  return out;
}

/** What the history records of the branch: its nodes' settings, files by name (never their bytes). */
function branchFlowData(plan: UpsertPlan, files: Record<string, LoaderFile[]>): string {
  const shown = (v: unknown): unknown => (typeof v === "string" && v.startsWith("data:") ? v.replace(/^data:[^,]*,[^,]*/, "data:…") : v);
  const nodes = plan.order.map((n) => {
    const inputs: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(n.data.inputs ?? {})) inputs[k] = shown(v);
    const field = loaderFileField(n.data.name);
    if (field && files[field]) inputs[field] = `FILE-STORAGE::${JSON.stringify(files[field].map((f) => f.name))}`;
    return { id: n.id, label: n.data.label, name: n.data.name, category: n.data.category, inputs, outputs: n.data.outputs ?? {} };
  });
  return JSON.stringify({ stopNodeId: plan.target.id, nodes });
}

/**
 * Runs the upsert: counts as LangChain's indexing reports them, addedDocs cut at 1000. `signal`:
 * aborted when the caller goes away.
 */
export async function upsertChatflowVectors(
  deps: Deps<"db" | "env" | "runtime">,
  flow: ChatflowRow,
  request: VectorUpsertRequest,
  uploads: LoaderFile[],
  signal?: AbortSignal,
): Promise<VectorUpsertResult> {
  const storedVars = await loadVariables(deps);
  const { graph, plan } = planFlowUpsert(flow.flowData, request.stopNodeId);
  assertUpsertSupported(plan);
  const files = filesByInput(plan, uploads, deps.runtime.maxUploadBytes);
  const overrideConfig = request.overrideConfig ?? {};
  const runId = newId();
  const ctx = createRunContext(deps.runtime, {
    chatflowid: flow.id,
    chatId: runId,
    nodeOverrides: gateNodeOverrides(graph, flow.apiConfig, overrideConfig),
    vars: { ...storedVars, ...gateVarOverrides(flow.apiConfig, overrideConfig) },
    ...(signal ? { signal } : {}),
    files,
  });
  const counts = await runUpsert(graph, plan, ctx);

  // Kept once the upsert worked: a FILE-STORAGE::[name] input of this chatflow can then name them.
  for (const list of Object.values(files)) {
    for (const f of list) await deps.runtime.files.write(chatflowFileKey(flow.id, f.name), f);
  }
  const { addedDocs, ...numbers } = counts;
  await recordUpsert(deps, flow.id, numbers, branchFlowData(plan, files));
  return { ...numbers, addedDocs: addedDocs.slice(0, ADDED_DOCS_LIMIT) };
}
