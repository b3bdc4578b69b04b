import { z } from "@hono/zod-openapi";
import { ChatflowIdParam, DeletedResponse } from "../schemas/common";
import { ChatMessage, ChatMessageDeleteQuery, ChatMessageQuery } from "../schemas/chatmessages";
import { findConversationOwner } from "../services/chatflows";
import * as service from "../services/chatmessages";
import { createRouter, jsonResponse, protectedRoute } from "./router";
import { onPathRecord } from "../auth/record-guards";

const tags = ["chatmessage"];
export const chatMessageRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "get",
      path: "/{chatflowid}",
      permission: onPathRecord("chatflowid", "view"),
      tags,
      summary: "Chat messages of a chatflow, filtered",
      request: { params: ChatflowIdParam, query: ChatMessageQuery },
      responses: jsonResponse(z.array(ChatMessage)),
    }),
    async (c) => {
      const { chatflowid } = c.req.valid("param");
      const { order, feedback, feedbackType, chatType, "chatType[]": chatTypeArray, ...filter } = c.req.valid("query");
      await findConversationOwner(c.var.services, chatflowid);
      const chatTypes = [...(chatType ?? []), ...(chatTypeArray ?? [])];
      const messages = await service.listChatMessages(
        c.var.services,
        { ...filter, chatTypes, chatflowid },
        { order, feedback, feedbackType },
      );
      return c.json(messages as z.infer<typeof ChatMessage>[], 200);
    },
  )
  .openapi(
    protectedRoute({
      method: "delete",
      path: "/{chatflowid}",
      permission: onPathRecord("chatflowid", "update", "delete"),
      tags,
      summary: "Delete chat messages of a chatflow, filtered, with their feedback and uploaded files",
      request: { params: ChatflowIdParam, query: ChatMessageDeleteQuery },
      responses: jsonResponse(DeletedResponse),
    }),
    async (c) => {
      const { chatflowid } = c.req.valid("param");
      // hardDelete would also clear an external memory store; edgeflow's memories read this table,
      // so deleting the rows is the whole job either way.
      const { hardDelete: _hardDelete, feedbackType, chatType, "chatType[]": chatTypeArray, ...filter } = c.req.valid("query");
      await findConversationOwner(c.var.services, chatflowid);
      const chatTypes = [...(chatType ?? []), ...(chatTypeArray ?? [])];
      const deleted = await service.deleteChatMessages(c.var.services, { ...filter, chatTypes, chatflowid }, feedbackType);
      return c.json({ deleted }, 200);
    },
  );
