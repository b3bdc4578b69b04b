// The first half of an upsert: validate every name, size and type, resolve files and providers.
// Nothing is written here, so bad input leaves the store as it was; execute.ts runs the plan.
import { badRequest, notFound, payloadTooLarge, unsupportedMediaType } from "../../errors";
import { maxUploadBytes } from "../../env";
import { newId } from "../../lib/ids";
import { type WorkLimits, megabytes, overLimit, workLimits } from "../../lib/limits";
import { loaderDefinition, loaderForFile } from "../../providers/loaders/registry";
import type { LoaderFile } from "../../providers/loaders/types";
import { DEFAULT_SPLITTER, buildSplitter } from "../../providers/splitters/registry";
import type { UpsertInput } from "../../schemas/document-store";
import { type VectorComponents, resolveComponents } from "./components";
import { decodeFlowiseDataUri, fileKey, safeFileName } from "./files";
import { type StreamProgress, parseProgress } from "./progress";
import { type StoreState, parseComponent } from "./stores";
import type { DocStoreDeps, SourceFile } from "./types";

/** How a loader's saved config names files kept in R2 (Flowise's marker). */
export const FILE_STORAGE = "FILE-STORAGE::";

/** Everything an upsert needs, checked; executing it is the only thing that writes. */
export interface Plan {
  storeId: string;
  newStore?: { name: string; description?: string | null };
  entryId: string;
  /** The entry is an existing loader, processed again in place (else a new one). */
  replaces: boolean;
  loaderNode: string;
  loaderName: string;
  loaderConfig: Record<string, unknown>;
  splitter: { name: string; config: Record<string, unknown> };
  /** The loader's files: uploads staged in R2, data URIs in memory, or files kept in R2 under another (or this) loader. */
  files: SourceFile[];
  /** The loader reads its files a window at a time (text, JSON Lines): see ingest.ts. */
  streamed: boolean;
  components: VectorComponents;
  /** The lease a queued upsert staged this loader under (the queue consumer works under it). */
  lease?: string;
  /** Where a streamed run of this loader stands, as its row says (a queued run continues from there). */
  progress?: StreamProgress;
}

/** What a request brought: its files (staged in R2 under upload `id` by a multipart body, or in memory). */
export interface Uploads {
  files: SourceFile[];
  id?: string;
}

function checkFile(f: SourceFile, loaderNode: string, maxBytes: number, limits: WorkLimits): void {
  const def = loaderDefinition(loaderNode);
  // Files read in windows may be larger: memory holds a window of them, never the whole.
  if (def.windows && f.size > megabytes(limits.streamedFileMb))
    throw overLimit(limits, "streamedFileMb", `File ${f.name}`, Math.ceil(f.size / 1024 / 1024));
  if (!def.windows && f.size > maxBytes)
    throw payloadTooLarge(`File ${f.name} is larger than the upload limit of ${Math.round(maxBytes / 1024 / 1024)} MB (MAX_UPLOAD_MB)`);
  if (!def.fileField) throw badRequest(`Loader ${loaderNode} takes no files`);
  if (def.accepts && !def.accepts(f))
    throw unsupportedMediaType(`Loader ${loaderNode} cannot read ${f.name} (${f.mime || "unknown type"})`);
}

/** Data URIs given in the loader config (Flowise's JSON way of sending files). */
function dataUriFiles(value: unknown): LoaderFile[] | undefined {
  if (typeof value !== "string" || !value) return undefined;
  if (value.startsWith("data:")) return [decodeFlowiseDataUri(value)];
  if (value.startsWith("[")) {
    let list: unknown;
    try {
      list = JSON.parse(value);
    } catch {
      return undefined;
    }
    if (Array.isArray(list) && list.length && list.every((v) => typeof v === "string" && v.startsWith("data:")))
      return list.map((v) => decodeFlowiseDataUri(v as string));
  }
  return undefined;
}

function metadataOf(value: UpsertInput["metadata"]): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  return typeof value === "string" ? JSON.parse(value) : value;
}

/** Validates an upsert (or one refresh item) and resolves what it will do. Writes nothing. */
export function planUpsert(
  deps: DocStoreDeps,
  store: StoreState | undefined,
  input: UpsertInput,
  uploads: Uploads = { files: [] },
  options: { inPlace?: boolean } = {},
): Plan {
  const row = store?.row;
  const previous = input.docId ? store?.loaders.find((l) => l.id === input.docId) : undefined;
  if (input.docId && !previous) throw notFound(`Document loader ${input.docId} not found in document store ${row?.id ?? ""}`.trim());

  const loaderNode = input.loader?.name ?? previous?.loaderId ?? (uploads.files[0] ? loaderForFile(uploads.files[0].name) : undefined);
  if (!loaderNode) throw badRequest("A loader is required: give loader {name, config}, a docId, or files");
  const def = loaderDefinition(loaderNode);
  const loaderConfig: Record<string, unknown> = { ...(previous?.loaderConfig ?? {}), ...(input.loader?.config ?? {}) };
  const metadata = metadataOf(input.metadata);
  if (metadata && Object.keys(metadata).length) loaderConfig.metadata = metadata;

  const maxBytes = maxUploadBytes(deps.env);
  const limits = workLimits(deps.env);
  let files: SourceFile[] = [];
  if (uploads.files.length) {
    files = uploads.files.map((f) => ({ ...f, name: safeFileName(f.name) }));
  } else if (def.fileField) {
    const value = loaderConfig[def.fileField];
    files = dataUriFiles(value)?.map((f) => ({ name: f.name, mime: f.mime, size: f.bytes.length, bytes: f.bytes })) ?? [];
    if (!files.length && typeof value === "string" && value.startsWith(FILE_STORAGE) && previous?.files?.length) {
      files = previous.files.map((e) => ({
        name: e.name,
        mime: e.mimePrefix,
        size: e.size,
        key: fileKey(row!.id, previous.id, e.name),
        entry: e,
      }));
    }
    if (!files.length)
      throw badRequest(`Loader ${loaderNode} needs a file: upload it in \`files\` (multipart) or give ${def.fileField} as a data URI`);
  }
  for (const f of files) if (!f.entry) checkFile(f, loaderNode, maxBytes, limits);
  if (def.fileField) delete loaderConfig[def.fileField];

  const splitterName = input.splitter?.name ?? previous?.splitterId ?? DEFAULT_SPLITTER;
  const splitterConfig = {
    ...(previous?.splitterId === splitterName ? (previous.splitterConfig ?? {}) : {}),
    ...(input.splitter?.config ?? {}),
  };
  buildSplitter(splitterName, splitterConfig); // validates names and sizes now

  const components = resolveComponents(deps.env, input, {
    embedding: parseComponent(row?.embeddingConfig ?? null),
    vectorStore: parseComponent(row?.vectorStoreConfig ?? null),
    recordManager: parseComponent(row?.recordManagerConfig ?? null),
  });

  const newStore = input.createNewDocStore ? (input.docStore ?? { name: `Document Store ${new Date().toISOString()}` }) : undefined;
  // Into a new store a docId's loader is copied, never replaced.
  const replaces = !newStore && !!previous && !!(input.replaceExisting || options.inPlace);
  return {
    storeId: newStore ? newId() : row!.id,
    newStore,
    // A new loader takes the id its files were staged under, so they need not move.
    entryId: replaces ? previous!.id : (uploads.id ?? newId()),
    replaces,
    loaderNode,
    loaderName: input.loaderName || (previous?.loaderId === loaderNode ? previous.loaderName : def.label),
    loaderConfig,
    splitter: { name: splitterName, config: splitterConfig },
    files,
    streamed: !!def.windows && files.length > 0,
    components,
  };
}

/** A plan that re-runs a saved loader in place (refresh, and the queue consumer, which may continue where its run stands). */
export function planSaved(deps: DocStoreDeps, store: StoreState, loaderId: string, lease?: string): Plan {
  const progress = parseProgress(store.rows.find((r) => r.id === loaderId)?.progress ?? null);
  return { ...planUpsert(deps, store, { docId: loaderId }, undefined, { inPlace: true }), lease, progress };
}
