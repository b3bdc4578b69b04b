// POST /document-store/generate-tool-desc/{id}: a chosen chat model writes the description an agent
// reads to decide when to search this store (the canvas's and the custom assistant's "generate"
// button). The model sees the store's first chunks, as Flowise's does, with edgeflow's own prompt.
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { asc, eq } from "drizzle-orm";
import { documentStoreFileChunk } from "../../db/schema";
import { modelFailure } from "../../engine/core/errors";
import { badGateway, notFound } from "../../errors";
import { isObject } from "../../lib/inputs";
import { buildChatModel } from "../../providers/chat/registry";
import { contentText } from "../../providers/chat/messages";
import { getStoreRow } from "./stores";
import type { DocStoreDeps } from "./types";

/** How many of the store's first chunks the model reads (Flowise's number). */
const SAMPLE_CHUNKS = 4;

const PROMPT =
  "You write the description of a search tool for an AI agent. The tool searches a knowledge base; below are the first " +
  "passages of it. In two or three sentences, say what the knowledge base covers and when the agent should search it. " +
  "Answer with the description only: no preamble, no quotes, no lists.";

export interface SelectedChatModel {
  name: string;
  inputs?: Record<string, unknown>;
  credential?: string | null;
}

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

  const inputs = isObject(selected.inputs) ? { ...selected.inputs } : {};
  const credential = selected.credential || inputs.FLOWISE_CREDENTIAL_ID;
  if (typeof credential === "string" && credential) inputs.credential = credential;
  const model = await buildChatModel(selected.name, inputs, { env: deps.env, getCredential: deps.getCredential, signal });
  let reply;
  try {
    reply = await model.invoke([new SystemMessage(PROMPT), new HumanMessage(rows.map((r) => r.pageContent).join("\n\n"))], { signal });
  } catch (err) {
    throw modelFailure(err, { signal });
  }
  const content = contentText(reply.content).trim();
  if (!content) throw badGateway(`${selected.name} answered no description`);
  return { content };
}
