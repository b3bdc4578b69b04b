import { z } from "@hono/zod-openapi";
import { optionalAuth } from "../auth/bearer";
import { assertMayRun, assertOriginAllowed } from "../auth/prediction-access";
import { text, uuid } from "../schemas/common";
import { IdParam } from "../schemas/common";
import { assertOnRecord } from "../auth/record-guards";
import { Chatflow } from "../schemas/chatflows";
import { chatflowStreams, findConversationOwner, getChatflow } from "../services/chatflows";
import { imageUploadsOf } from "../services/flow-canvas";
import { publicFlowData } from "../services/public-chatflow";
import { abortRun } from "../services/runs";
import { chatflowWithSpeech } from "../services/speech";
import { OPTIONAL_BEARER, createRouter, jsonResponse, publicRoute } from "./router";

const tags = ["widget"];

function parseConfig(chatbotConfig: string | null): Record<string, unknown> {
  if (!chatbotConfig) return {};
  try {
    const value = JSON.parse(chatbotConfig);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/** What a chat widget asks before its first message, and its stop button. */
export const widgetRoutes = createRouter()
  .openapi(
    publicRoute({
      method: "get",
      path: "/chatflows-streaming/{id}",
      tags,
      summary: "Whether a chatflow streams (open for any chatflow; reveals nothing else)",
      request: { params: IdParam },
      responses: jsonResponse(z.object({ isStreaming: z.boolean() })),
    }),
    async (c) => c.json({ isStreaming: await chatflowStreams(c.var.services, c.req.valid("param").id) }, 200),
  )
  .openapi(
    publicRoute({
      method: "get",
      path: "/public-chatbotConfig/{id}",
      tags,
      middleware: [optionalAuth],
      security: OPTIONAL_BEARER,
      summary: "A chatflow's chatbotConfig and upload capabilities, for its widget",
      request: { params: IdParam },
      responses: jsonResponse(z.record(z.string(), z.unknown())),
    }),
    async (c) => {
      // Capabilities are reported true only where the endpoint they make the widget call is served;
      // speech where its provider can run (services/speech): the microphone, and the speaker button.
      const { flow, isSpeechToTextEnabled, isTTSEnabled } = await chatflowWithSpeech(c.var.services, c.req.valid("param").id);
      await assertMayRun(c, flow);
      // Images as the studio's chat reports them (the prediction gives them to the model); RAG files
      // would go to /vector/upsert, which is no widget path: not offered.
      const uploads = {
        isSpeechToTextEnabled,
        ...imageUploadsOf(flow.flowData),
        isRAGFileUploadAllowed: false,
        fileUploadSizeAndTypes: [],
      };
      // As Flowise: the origin rules stay private, and flowData comes as public endpoints show it (the
      // widget reads an agentflow's Start node from it to show its form).
      const { allowedOrigins: _origins, allowedOriginsError: _error, ...config } = parseConfig(flow.chatbotConfig);
      return c.json({ ...config, uploads, flowData: publicFlowData(flow.flowData), isTTSEnabled }, 200);
    },
  )
  .openapi(
    publicRoute({
      method: "get",
      path: "/public-chatflows/{id}",
      tags,
      middleware: [optionalAuth],
      security: OPTIONAL_BEARER,
      summary:
        "A chatflow for its full-page chatbot (/chatbot/{id}): anyone's when public (flowData without credentials), " +
        "else as GET /chatflows/{id}",
      description:
        "A public chatflow answers anyone, its flowData without credential references, password, file or folder inputs and " +
        "authorization headers. A private one answers who may GET /chatflows/{id} (401 without a bearer or the studio's session).",
      request: { params: IdParam },
      responses: jsonResponse(Chatflow),
    }),
    async (c) => {
      const flow = await getChatflow(c.var.services, c.req.valid("param").id);
      if (flow.isPublic) return c.json({ ...flow, flowData: publicFlowData(flow.flowData) }, 200);
      await assertOnRecord(c, { kind: "chatflow", id: flow.id, type: flow.type }, "view", "update", "delete"); // GET /chatflows/{id}'s rule
      return c.json(flow, 200);
    },
  )
  .openapi(
    publicRoute({
      method: "put",
      path: "/chatmessage/abort/{chatflowid}/{chatId}",
      tags,
      middleware: [optionalAuth],
      security: OPTIONAL_BEARER,
      summary: "Stop a chat's run in progress (whoever may run the chatflow: anyone for a public one, else its bearer)",
      request: { params: z.object({ chatflowid: uuid(), chatId: text(1000) }) },
      responses: jsonResponse(z.object({ aborted: z.boolean() })),
    }),
    async (c) => {
      const { chatflowid, chatId } = c.req.valid("param");
      // The same rule as running it: otherwise anyone could end a private chatflow's runs.
      const owner = await findConversationOwner(c.var.services, chatflowid);
      await assertMayRun(c, owner);
      assertOriginAllowed(owner.chatbotConfig, c.req.header("origin"));
      return c.json({ aborted: abortRun(chatflowid, chatId) }, 200);
    },
  );
