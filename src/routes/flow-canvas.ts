// What the studio's canvas and test chat read about a saved flow (services/flow-canvas.ts).
import { z } from "@hono/zod-openapi";
import { AUTHENTICATED } from "../auth/guard";
import { onPathRecord } from "../auth/record-guards";
import { IdParam, dateQuery } from "../schemas/common";
import { chatTypeList, feedbackTypeList } from "../schemas/chatmessages";
import * as service from "../services/flow-canvas";
import { createRouter, jsonBody, jsonResponse, protectedRoute, publicRoute } from "./router";

const tags = ["studio"];
const HasChanged = z.object({ hasChanged: z.boolean() });
const SizeAndTypes = z.object({ fileTypes: z.array(z.string()), maxUploadSize: z.number() });
const Uploads = z.object({
  isSpeechToTextEnabled: z.boolean(),
  isImageUploadAllowed: z.boolean(),
  isRAGFileUploadAllowed: z.boolean(),
  imgUploadSizeAndTypes: z.array(SizeAndTypes),
  fileUploadSizeAndTypes: z.array(SizeAndTypes),
});
const Stats = z.object({ totalMessages: z.number(), totalSessions: z.number(), totalFeedback: z.number(), positiveFeedback: z.number() });
const StatsQuery = z.object({
  chatType: chatTypeList(),
  "chatType[]": chatTypeList(),
  startDate: dateQuery("start").optional(),
  endDate: dateQuery("end").optional(),
  feedbackType: feedbackTypeList(),
  "feedbackType[]": feedbackTypeList(),
});

const hasChangedRoute = <P extends z.ZodObject>(path: string, params: P) =>
  protectedRoute({
    method: "get",
    path,
    permission: onPathRecord("id", "update"),
    tags,
    summary: "Whether a flow was saved since the canvas read it (an empty timestamp: false)",
    request: { params },
    responses: jsonResponse(HasChanged),
  });

const many = <T>(...values: (T | T[] | undefined)[]): T[] => values.flatMap((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]));

export const flowCanvasRoutes = createRouter()
  .openapi(hasChangedRoute("/chatflows/has-changed/{id}/{ts}", IdParam.extend({ ts: z.string().max(100) })), async (c) => {
    const { id, ts } = c.req.valid("param");
    return c.json(await service.hasChanged(c.var.services, id, ts), 200);
  })
  .openapi(hasChangedRoute("/chatflows/has-changed/{id}", IdParam), async (c) =>
    c.json(await service.hasChanged(c.var.services, c.req.valid("param").id, ""), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/flow-config/{id}",
      permission: onPathRecord("id", "view", "update"),
      tags,
      summary: "The inputs a prediction may override on this flow (Flowise's flow-config)",
      request: { params: IdParam },
      responses: jsonResponse(z.array(z.record(z.string(), z.unknown()))),
    }),
    async (c) => c.json(await service.flowConfig(c.var.services, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/node-config",
      permission: AUTHENTICATED,
      tags,
      summary: "One node's overridable inputs, from its canvas data (Flowise's node-config)",
      request: { body: jsonBody(z.record(z.string(), z.unknown()).openapi("NodeData")) },
      responses: jsonResponse(z.array(z.record(z.string(), z.unknown()))),
    }),
    async (c) => c.json(await service.nodeConfig(c.req.valid("json")), 200),
  )
  .openapi(
    publicRoute({
      method: "get",
      path: "/chatflows-uploads/{id}",
      tags,
      summary: "What a flow's chat may upload: images, files for retrieval, speech (public)",
      request: { params: IdParam },
      responses: jsonResponse(Uploads),
    }),
    async (c) => c.json(await service.uploadsConfig(c.var.services, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/stats/{id}",
      permission: onPathRecord("id", "view"),
      tags,
      summary: "A flow's message, session and feedback counts",
      request: { params: IdParam, query: StatsQuery },
      responses: jsonResponse(Stats),
    }),
    async (c) => {
      const q = c.req.valid("query");
      const chatTypes = many(q.chatType, q["chatType[]"]);
      const feedbackTypes = many(q.feedbackType, q["feedbackType[]"]);
      const filter = { chatTypes, startDate: q.startDate, endDate: q.endDate, feedbackTypes: [...new Set(feedbackTypes)] };
      return c.json(await service.flowStats(c.var.services, c.req.valid("param").id, filter), 200);
    },
  );
