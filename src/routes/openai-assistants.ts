// The studio's OpenAI Assistants pages (Flowise's /openai-assistants, /openai-assistants-file and
// /openai-assistants-vector-store) manage assistants inside OpenAI's Assistants API, which OpenAI
// has retired and edgeflow does not call. Every such call answers one clear 400 saying so (a signed-in
// caller; anyone else the usual 401), so the page shows why instead of a 404.
import type { Context } from "hono";
import { requireAuth } from "../auth/bearer";
import type { AppEnv } from "../env";
import { fail } from "../errors";
import { createRouter } from "./router";

export const OPENAI_ASSISTANTS_REFUSAL =
  "OpenAI Assistants need OpenAI's Assistants API, which OpenAI has retired and edgeflow does not call: " +
  "make a Custom Assistant instead (Assistants → Custom Assistant), with any chat model, tools and document stores";

const refuse = (_c: Context<AppEnv>) => {
  throw fail("BAD_REQUEST", OPENAI_ASSISTANTS_REFUSAL);
};

export const openaiAssistantsRoutes = createRouter();
for (const path of ["/openai-assistants", "/openai-assistants-file", "/openai-assistants-vector-store"]) {
  openaiAssistantsRoutes.all(path, requireAuth, refuse);
  openaiAssistantsRoutes.all(`${path}/*`, requireAuth, refuse);
}
