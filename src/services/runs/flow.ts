// The flow a run runs: a chatflow row, or an assistant made into one.
import { eq } from "drizzle-orm";
import { notFound } from "../../errors";
import { chatFlow } from "../../db/schema";
import { nowIso } from "../../lib/time";
import { assistantFlowData } from "../assistant-flow";
import type { Deps } from "../deps";

export type RunnableFlow = typeof chatFlow.$inferSelect;

/** The chatflow to run; 404 when the id names nothing. */
export async function findRunnable({ db }: Deps<"db">, id: string): Promise<RunnableFlow> {
  const flow = await db.select().from(chatFlow).where(eq(chatFlow.id, id)).get();
  if (flow) return flow;
  // An assistant runs as a graph made from its details; it is never public and has no key or origins.
  const flowData = await assistantFlowData({ db }, id);
  if (flowData) {
    const now = nowIso();
    return {
      id,
      flowData,
      name: "assistant",
      type: "ASSISTANT",
      deployed: true,
      isPublic: false,
      apikeyid: null,
      chatbotConfig: null,
      apiConfig: null,
      analytic: null,
      speechToText: null,
      textToSpeech: null,
      followUpPrompts: null,
      category: null,
      createdDate: now,
      updatedDate: now,
    };
  }
  throw notFound(`Chatflow ${id} not found`);
}
