// Where a streamed upsert of a loader stands, kept on its row (`progress`, JSON) and written with
// every window's chunks in the same D1 batch: the row always says exactly which chunks exist and
// where reading goes on. A queued run that stops (its message's share done, or its worker gone)
// continues from there under the same lease; any other run starts over.
import type { FilePosition } from "./windows";
import type { LoaderProgress } from "./types";

export interface IndexCounts {
  numAdded: number;
  numUpdated: number;
  numSkipped: number;
  numDeleted: number;
}

export interface StreamProgress {
  /** This run (its vectors' ids start with it). */
  run: string;
  /** The lease it works under: only work under the same lease continues it. */
  lease: string;
  /** When it started (the record manager's index time). */
  since: number;
  /** The file being read, and where in it the next window starts. */
  file: number;
  at: FilePosition;
  bytesRead: number;
  totalBytes: number;
  /** Chunks stored, and how many of them are in the vector store. */
  chunks: number;
  indexed: number;
  /** The loader's vectors from before this run are deleted (no record manager). */
  cleared: boolean;
  counts: IndexCounts;
}

export const NO_COUNTS: IndexCounts = { numAdded: 0, numUpdated: 0, numSkipped: 0, numDeleted: 0 };

export function parseProgress(text: string | null): StreamProgress | undefined {
  if (!text) return undefined;
  try {
    const p = JSON.parse(text) as StreamProgress;
    return p && typeof p.run === "string" && typeof p.lease === "string" && p.at && typeof p.at.offset === "number" ? p : undefined;
  } catch {
    return undefined;
  }
}

/** What the API shows of it (the loader entry's `progress`). */
export const publicProgress = (p: StreamProgress): LoaderProgress => ({
  bytesRead: p.bytesRead,
  totalBytes: p.totalBytes,
  chunks: p.chunks,
});

export const addCounts = (a: IndexCounts, b: IndexCounts): IndexCounts => ({
  numAdded: a.numAdded + b.numAdded,
  numUpdated: a.numUpdated + b.numUpdated,
  numSkipped: a.numSkipped + b.numSkipped,
  numDeleted: a.numDeleted + b.numDeleted,
});
