// What a chatflow's chat may do with speech, for /chatflows-uploads/{id} and /public-chatbotConfig/{id}:
// each true only when its active provider is one edgeflow has, usable on this deployment (Workers AI
// needs the AI binding) and its credential, when it names one, is stored. The flow and which of the
// credentials its speech settings name are stored are read in one batch: the widget's config call
// makes one round trip whatever its speech settings.
import { eq, sql } from "drizzle-orm";
import { chatFlow, credential } from "../../db/schema";
import { notFound } from "../../errors";
import type { Deps } from "../deps";
import { activeSpeechToText, activeTextToSpeech, isUsable } from "./settings";

// Every id a provider's settings of either kind name (`credentialId`, or `credential`), in SQL so it
// is read beside the flow; settings that are not a JSON object name none.
const namedCredentials = (flowId: string) => sql`
  SELECT json_extract(p.value, '$.' || k.value)
  FROM chat_flow f,
    json_each(json_array(f.speechToText, f.textToSpeech)) s,
    json_each(CASE WHEN json_valid(s.value) AND json_type(s.value) = 'object' THEN s.value ELSE '{}' END) p,
    json_each('["credentialId","credential"]') k
  WHERE f.id = ${flowId} AND p.type = 'object'`;

/** The chatflow (404 when there is none) and what its chat may do with speech, in one round trip. */
export async function chatflowWithSpeech({ db, env }: Deps<"db" | "env">, id: string) {
  const [flows, stored] = await db.batch([
    db.select().from(chatFlow).where(eq(chatFlow.id, id)),
    db
      .select({ id: credential.id })
      .from(credential)
      .where(sql`${credential.id} IN (${namedCredentials(id)})`),
  ]);
  const flow = flows[0];
  if (!flow) throw notFound(`Chatflow ${id} not found`);
  const ids = new Set(stored.map((row) => row.id));
  return {
    flow,
    isSpeechToTextEnabled: isUsable(env, "speechToText", activeSpeechToText(flow.speechToText), ids),
    isTTSEnabled: isUsable(env, "textToSpeech", activeTextToSpeech(flow.textToSpeech), ids),
  };
}
