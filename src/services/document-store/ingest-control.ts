// What a streamed upsert (ingest.ts) is told and what it answers when it stops early: its byte
// budget (a queue message's share) and the "continues" answer a later call under the same lease
// picks up.
import type { IndexControl } from "./indexing";

export interface StreamControl extends IndexControl {
  /** Bytes this call reads before it stops and leaves the rest to a later call (a queue message's share). */
  budgetBytes?: number;
}

/** A streamed run stopped at its budget: its progress is saved, a later call under the same lease continues it. */
export interface Continues {
  continues: true;
  docId: string;
  storeId: string;
}

export const isContinues = (r: unknown): r is Continues => !!r && typeof r === "object" && (r as Continues).continues === true;
