// POST /document-store/generate-tool-desc/{id}: a chosen chat model writes the description an agent
// reads to decide when to search this store (the canvas's and the custom assistant's "generate"
// button). The model sees the store's first chunks, as Flowise's does, with edgeflow's own prompt.
import { asc, eq } from "drizzle-orm";
import { documentStoreFileChunk } from "../../db/schema";
import { notFound } from "../../errors";
import { type SelectedChatModel, askChosenModel } from "../chosen-model";
import { getStoreRow } from "./stores";
import type { DocStoreDeps } from "./types";

/** How many of the store's first chunks the model reads (Flowise's number). */
const SAMPLE_CHUNKS = 4;

const PROMPT =
  "You write the description of a search tool for an AI agent. The tool searches a knowledge base; below are the first " +
  "passages of it. In two or three sentences, say what the knowledge base covers and when the agent should search it. " +
  "Answer with the description only: no preamble, no quotes, no lists.";

export async function generateToolDescription(
  deps: DocStoreDeps,
  storeId: string,
  selected: SelectedChatModel,
  signal: AbortSignal,
): Promise<{ content: string }> {
  await getStoreRow(deps, storeId); // 404 for no such store
  const rows = await deps.db
    .select({ pageContent: documentStoreFileChunk.pageContent })
    .from(documentStoreFileChunk)
    .where(eq(documentStoreFileChunk.storeId, storeId))
    .orderBy(asc(documentStoreFileChunk.chunkNo))
    .limit(SAMPLE_CHUNKS)
    .all();
  if (!rows.length) throw notFound(`Document store ${storeId} has no chunks yet: process a loader first`);

  const human = rows.map((r) => r.pageContent).join("\n\n");
  const content = await askChosenModel(deps, selected, { system: PROMPT, human, what: "description" }, signal);
  return { content };
}
