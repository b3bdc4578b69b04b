import type { DocumentStoreStatus } from "../../db/enums";
import type { Deps } from "../deps";

/** An uploaded file, as routes hand it to the services (the loaders' own type). */
export type { LoaderFile } from "../../providers/loaders/types";

/** A file kept for a loader (in R2 under its loader's prefix), as Flowise lists it. */
export interface LoaderFileEntry {
  id: string;
  name: string;
  mimePrefix: string;
  size: number;
  status: DocumentStoreStatus;
  uploaded: string;
}

/**
 * A file an upsert reads: in R2 (an upload staged there, or a loader's stored file) or in memory
 * (a data URI of a JSON body).
 */
export interface SourceFile {
  name: string;
  mime: string;
  size: number;
  /** Its R2 key, when it is there. */
  key?: string;
  bytes?: Uint8Array;
  /** A loader's stored file: its listing, kept when the file stays where it is. */
  entry?: LoaderFileEntry;
}

/** How far a streamed upsert of a loader has read (the loader entry's `progress`). */
export interface LoaderProgress {
  bytesRead: number;
  totalBytes: number;
  chunks: number;
}

/** One entry of a store's `loaders` (Flowise's IDocumentStoreLoader). */
export interface LoaderEntry {
  id: string;
  loaderId: string;
  loaderName: string;
  loaderConfig: Record<string, unknown>;
  splitterId?: string;
  splitterName?: string;
  splitterConfig?: Record<string, unknown>;
  totalChunks: number;
  totalChars: number;
  status: DocumentStoreStatus;
  files: LoaderFileEntry[];
  /** Why the last processing failed (async upserts), until it succeeds. */
  error?: string;
  /** While its files are read in windows (and after such a run stopped unfinished): how far it got. */
  progress?: LoaderProgress;
}

/** `{name, config}`: how Flowise stores a store's embedding / vector store / record manager. */
export interface ComponentConfig {
  name: string;
  config: Record<string, unknown>;
}

/** What the document store services need from outside (the container's part); no HTTP in here. */
export type DocStoreDeps = Deps<"db" | "env" | "files" | "getCredential">;
