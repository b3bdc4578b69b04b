// Text to speech (services/speech): the studio's and the widget's speaker button, and the studio's
// voice dialog. docs/speech.md.
import { z } from "@hono/zod-openapi";
import { optionalAuth } from "../auth/bearer";
import { assertAllowed, can } from "../auth/guard";
import { assertMayRun, assertOriginAllowed } from "../auth/prediction-access";
import { AbortSpeechAnswer, AbortSpeechBody, SpeakBody, Voice, VoicesQuery } from "../schemas/text-to-speech";
import { getChatflow } from "../services/chatflows";
import { abortSpeech, listVoices, speak } from "../services/speech";
import { SSE_HEADERS } from "../stream/sse";
import { OPTIONAL_BEARER, createRouter, errorResponsesFor, jsonBody, jsonResponse, protectedRoute, publicRoute } from "./router";

const tags = ["text-to-speech"];
// Speaking with a provider the request names uses a stored credential: for those who configure chatflows.
const CONFIGURES = ["chatflows:config", "chatflows:update", "agentflows:config", "agentflows:update"];

export const textToSpeechRoutes = createRouter()
  .openapi(
    publicRoute({
      method: "post",
      path: "/text-to-speech/generate",
      tags,
      middleware: [optionalAuth],
      security: OPTIONAL_BEARER,
      summary:
        "Speak a text: the chatflow's textToSpeech provider (whoever may run it), or the provider the body names " +
        "(Workers AI when none is named); Flowise's tts_start, tts_data (base64 mp3), tts_end frames",
      request: { body: jsonBody(SpeakBody) },
      responses: {
        200: { description: "text/event-stream frames", content: { "text/event-stream": { schema: z.string() } } },
        ...errorResponsesFor([400, 401, 403, 404, 502, 504]),
      },
    }),
    async (c) => {
      const { chatflowId, ...body } = c.req.valid("json");
      let flow: { id: string; textToSpeech: string | null } | undefined;
      if (chatflowId) {
        const found = await getChatflow(c.var.services, chatflowId);
        await assertMayRun(c, found);
        assertOriginAllowed(found.chatbotConfig, c.req.header("origin"));
        flow = found;
      } else {
        await assertAllowed(c, CONFIGURES);
      }
      return c.body(await speak(c.var.services, { ...body, flow }), 200, SSE_HEADERS);
    },
  )
  .openapi(
    publicRoute({
      method: "post",
      path: "/text-to-speech/abort",
      tags,
      middleware: [optionalAuth],
      security: OPTIONAL_BEARER,
      summary: "Stop a message's speech in progress (whoever may run the chatflow)",
      request: { body: jsonBody(AbortSpeechBody) },
      responses: jsonResponse(AbortSpeechAnswer),
    }),
    async (c) => {
      const { chatflowId, chatId, chatMessageId } = c.req.valid("json");
      const flow = await getChatflow(c.var.services, chatflowId);
      await assertMayRun(c, flow);
      assertOriginAllowed(flow.chatbotConfig, c.req.header("origin"));
      const aborted = abortSpeech(flow.id, chatId, chatMessageId);
      const message = aborted ? "TTS stream aborted successfully" : "No speech of that message is in progress";
      return c.json({ message, chatId, chatMessageId, aborted }, 200);
    },
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/text-to-speech/voices",
      permission: can(...CONFIGURES),
      tags,
      summary: "A text-to-speech provider's voices (with the credential the studio's dialog names)",
      request: { query: VoicesQuery },
      responses: jsonResponse(z.array(Voice)),
    }),
    async (c) => c.json(await listVoices(c.var.services, c.req.valid("query")), 200),
  );
