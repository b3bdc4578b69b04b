// microsoftTeams' chat message actions (teamsType chatMessage): a chat's messages, or a channel's
// when a team id is given (/teams/{team}/channels/{chatChannelId}/messages); /me/chats/getAllMessages.
import { z } from "zod";
import { apiCall } from "../oauth2/api";
import { type Args, type GraphAction, listPages, need, seg, wanted } from "./graph";

/** A chat's or channel's messages (and getAllMessages, whose doc pages by 50): $top at most 50, the rest over nextLink. */
const MESSAGES_PAGE = 50;

const REACTIONS = ["like", "heart", "laugh", "surprised", "sad", "angry"] as const;
const where = () => ({
  chatChannelId: z.string().describe("ID of the chat or channel"),
  teamId: z.string().optional().describe("ID of the team (required for channel messages)"),
});
const messageId = (what: string) => z.string().describe(`ID of the message to ${what}`);
/** A channel's messages when a team is given, else a chat's. */
const messages = (a: Args) =>
  a.teamId ? `/teams/${seg(a.teamId)}/channels/${seg(a.chatChannelId)}/messages` : `/chats/${seg(a.chatChannelId)}/messages`;
const context = (a: Args) => (a.teamId ? "channel" : "chat");
const IDS = "Chat/Channel ID and Message ID are required";

/** set / unset a reaction: POST …/messages/{id}/setReaction {reactionType}. */
const reaction = (verb: "set" | "unset"): GraphAction => ({
  option: `${verb}Reaction`,
  name: `${verb}_reaction`,
  description: verb === "set" ? "Set a reaction to a message" : "Remove a reaction from a message",
  schema: z.object({
    ...where(),
    messageId: messageId(verb === "set" ? "react to" : "remove reaction from"),
    reactionType: z
      .enum(REACTIONS)
      .optional()
      .default("like")
      .describe(verb === "set" ? "Type of reaction to set" : "Type of reaction to remove"),
  }),
  inputs: {
    chatChannelId: "chatChannelIdReaction",
    teamId: "teamIdReaction",
    messageId: "messageIdReaction",
    ...(verb === "set" && { reactionType: "reactionTypeSetReaction" }),
  },
  doing: `${verb === "set" ? "setting" : "unsetting"} reaction`,
  run: async (a, api) => {
    need(a, ["chatChannelId", "messageId"], IDS);
    const reactionType = a.reactionType || "like";
    await apiCall(api, { method: "POST", path: `${messages(a)}/${seg(a.messageId)}/${verb}Reaction`, body: { reactionType } });
    const message = verb === "set" ? `Reaction "${reactionType}" set successfully` : `Reaction "${reactionType}" removed successfully`;
    return { success: true, message, context: context(a) };
  },
});

export const chatMessageActions: GraphAction[] = [
  {
    option: "listMessages",
    name: "list_messages",
    description: "List messages in a chat or channel",
    schema: z.object({
      chatChannelId: z.string().describe("ID of the chat or channel to list messages from"),
      teamId: where().teamId,
      maxResults: z.number().optional().default(50).describe("Maximum number of messages to return"),
    }),
    inputs: { chatChannelId: "chatChannelIdListMessages", teamId: "teamIdListMessages", maxResults: "maxResultsListMessages" },
    doing: "listing messages",
    run: async (a, api) => {
      need(a, ["chatChannelId"], "Chat or Channel ID is required");
      const result = await listPages(api, messages(a), wanted(a.maxResults) ?? 50, { pageCap: MESSAGES_PAGE });
      return { success: true, messages: result.value ?? [], count: result.value?.length ?? 0, context: context(a) };
    },
  },
  {
    option: "getMessage",
    name: "get_message",
    description: "Get details of a specific message",
    schema: z.object({ ...where(), messageId: messageId("retrieve") }),
    inputs: { chatChannelId: "chatChannelIdGetMessage", teamId: "teamIdGetMessage", messageId: "messageIdGetMessage" },
    doing: "getting message",
    run: async (a, api) => {
      need(a, ["chatChannelId", "messageId"], IDS);
      const message = await apiCall(api, { path: `${messages(a)}/${seg(a.messageId)}` });
      return { success: true, message, context: context(a) };
    },
  },
  {
    option: "sendMessage",
    name: "send_message",
    description: "Send a message to a chat or channel",
    schema: z.object({
      chatChannelId: z.string().describe("ID of the chat or channel to send message to"),
      teamId: where().teamId,
      messageBody: z.string().describe("Content of the message"),
      contentType: z.enum(["text", "html"]).optional().default("text").describe("Content type of the message"),
    }),
    inputs: {
      chatChannelId: "chatChannelIdSendMessage",
      teamId: "teamIdSendMessage",
      messageBody: "messageBodySendMessage",
      contentType: "contentTypeSendMessage",
    },
    doing: "sending message",
    run: async (a, api) => {
      need(a, ["chatChannelId", "messageBody"], "Chat/Channel ID and Message Body are required");
      const body = { body: { contentType: a.contentType || "text", content: a.messageBody } };
      const message = await apiCall(api, { method: "POST", path: messages(a), body });
      return { success: true, message, context: context(a), messageText: "Message sent successfully" };
    },
  },
  {
    option: "updateMessage",
    name: "update_message",
    description: "Update an existing message",
    schema: z.object({ ...where(), messageId: messageId("update") }),
    inputs: { chatChannelId: "chatChannelIdUpdateMessage", teamId: "teamIdUpdateMessage", messageId: "messageIdUpdateMessage" },
    doing: "updating message",
    run: async (a, api) => {
      need(a, ["chatChannelId", "messageId"], IDS);
      // As Flowise: Graph lets an app update only a message's policy violation.
      await apiCall(api, { method: "PATCH", path: `${messages(a)}/${seg(a.messageId)}`, body: { policyViolation: null } });
      return { success: true, message: "Message updated successfully", context: context(a) };
    },
  },
  {
    option: "deleteMessage",
    name: "delete_message",
    description: "Delete a message",
    schema: z.object({ ...where(), messageId: messageId("delete") }),
    inputs: { chatChannelId: "chatChannelIdDeleteMessage", teamId: "teamIdDeleteMessage", messageId: "messageIdDeleteMessage" },
    doing: "deleting message",
    run: async (a, api) => {
      need(a, ["chatChannelId", "messageId"], IDS);
      await apiCall(api, { method: "POST", path: `${messages(a)}/${seg(a.messageId)}/softDelete`, body: {} });
      return { success: true, message: "Message deleted successfully", context: context(a) };
    },
  },
  {
    option: "replyToMessage",
    name: "reply_to_message",
    description: "Reply to a message in a chat or channel",
    schema: z.object({
      ...where(),
      messageId: messageId("reply to"),
      replyBody: z.string().describe("Content of the reply"),
      contentType: z.enum(["text", "html"]).optional().default("text").describe("Content type of the reply"),
    }),
    inputs: {
      chatChannelId: "chatChannelIdReplyMessage",
      teamId: "teamIdReplyMessage",
      messageId: "messageIdReplyMessage",
      replyBody: "replyBodyReplyMessage",
    },
    doing: "replying to message",
    run: async (a, api) => {
      need(a, ["chatChannelId", "messageId", "replyBody"], "Chat/Channel ID, Message ID, and Reply Body are required");
      const body = { body: { contentType: a.contentType || "text", content: a.replyBody } };
      // A channel message has replies; in a chat a reply is a new message (as Flowise).
      const path = a.teamId ? `${messages(a)}/${seg(a.messageId)}/replies` : messages(a);
      const reply = await apiCall(api, { method: "POST", path, body });
      return { success: true, reply, message: "Reply sent successfully", context: context(a) };
    },
  },
  reaction("set"),
  reaction("unset"),
  {
    option: "getAllMessages",
    name: "get_all_messages",
    description: "Get messages across all chats and channels for the user",
    schema: z.object({ maxResults: z.number().optional().default(50).describe("Maximum number of messages to return") }),
    doing: "getting all messages",
    run: async (a, api) => {
      const result = await listPages(api, "/me/chats/getAllMessages", wanted(a.maxResults) ?? 50, { pageCap: MESSAGES_PAGE });
      return { success: true, messages: result.value ?? [], count: result.value?.length ?? 0, source: "all_chats_and_channels" };
    },
  },
];
