// microsoftTeams' chat actions (teamsType chat): /me/chats, /chats/{id}, its members and pinned messages.
import { z } from "zod";
import { apiCall } from "../oauth2/api";
import { ToolCallError } from "../service";
import { GRAPH_URL, type GraphAction, listPages, memberOf, need, odataString, seg, wanted } from "./graph";

const chatId = (description = "ID of the chat") => z.string().describe(description);
const chatPath = (a: { chatId?: string }) => `/chats/${seg(a.chatId)}`;
const ID = "Chat ID is required";
const BOTH_USER = "Both Chat ID and User ID are required";
const BOTH_MESSAGE = "Both Chat ID and Message ID are required";

type Listed<T = unknown> = { value?: T[] };

export const chatActions: GraphAction[] = [
  {
    option: "listChats",
    name: "list_chats",
    description: "List all chats for the current user",
    schema: z.object({ maxResults: z.number().optional().default(50).describe("Maximum number of chats to return") }),
    inputs: { maxResults: "maxResultsListChats" },
    doing: "listing chats",
    run: async (a, api) => {
      // $top is at most 50 for chats; more come over @odata.nextLink.
      const result = (await listPages(api, "/me/chats", wanted(a.maxResults) ?? 50, { pageCap: 50 })) as Listed;
      return { success: true, chats: result.value ?? [], count: result.value?.length ?? 0 };
    },
  },
  {
    option: "getChat",
    name: "get_chat",
    description: "Get details of a specific chat",
    schema: z.object({ chatId: chatId("ID of the chat to retrieve") }),
    inputs: { chatId: "chatIdGetChat" },
    doing: "getting chat",
    run: async (a, api) => {
      need(a, ["chatId"], ID);
      return { success: true, chat: await apiCall(api, { path: chatPath(a) }) };
    },
  },
  {
    option: "createChat",
    name: "create_chat",
    description: "Create a new chat",
    schema: z.object({
      chatType: z.enum(["oneOnOne", "group"]).optional().default("group").describe("Type of chat to create"),
      topic: z.string().optional().describe("Topic/subject of the chat (for group chats)"),
      members: z.string().describe("Comma-separated list of user IDs to add to the chat"),
    }),
    inputs: { chatType: "chatTypeCreateChat", topic: "topicCreateChat", members: "membersCreateChat" },
    doing: "creating chat",
    run: async (a, api) => {
      need(a, ["members"], "Members list is required to create a chat");
      const chatType = a.chatType || "group";
      const members = String(a.members)
        .split(",")
        .map((id) => id.trim())
        .filter(Boolean)
        .map(memberOf);
      const body = { chatType, members, ...(a.topic && chatType === "group" && { topic: a.topic }) };
      const chat = await apiCall(api, { method: "POST", path: "/chats", body });
      return { success: true, chat, message: "Chat created successfully" };
    },
  },
  {
    option: "updateChat",
    name: "update_chat",
    description: "Update an existing chat",
    schema: z.object({ chatId: chatId("ID of the chat to update"), topic: z.string().describe("New topic/subject of the chat") }),
    inputs: { chatId: "chatIdUpdateChat", topic: "topicUpdateChat" },
    doing: "updating chat",
    run: async (a, api) => {
      need(a, ["chatId"], ID);
      need(a, ["topic"], "Topic is required to update a chat");
      await apiCall(api, { method: "PATCH", path: chatPath(a), body: { topic: a.topic } });
      return { success: true, message: "Chat updated successfully" };
    },
  },
  {
    option: "deleteChat",
    name: "delete_chat",
    description: "Delete a chat",
    schema: z.object({ chatId: chatId("ID of the chat to delete") }),
    inputs: { chatId: "chatIdDeleteChat" },
    doing: "deleting chat",
    run: async (a, api) => {
      need(a, ["chatId"], ID);
      await apiCall(api, { method: "DELETE", path: chatPath(a) });
      return { success: true, message: "Chat deleted successfully" };
    },
  },
  {
    option: "listChatMembers",
    name: "list_chat_members",
    description: "List members of a chat",
    schema: z.object({ chatId: chatId() }),
    inputs: { chatId: "chatIdChatMembers" },
    doing: "listing chat members",
    run: async (a, api) => {
      need(a, ["chatId"], ID);
      const result = (await apiCall(api, { path: `${chatPath(a)}/members` })) as Listed;
      return { success: true, members: result.value ?? [], count: result.value?.length ?? 0 };
    },
  },
  {
    option: "addChatMember",
    name: "add_chat_member",
    description: "Add a member to a chat",
    schema: z.object({ chatId: chatId(), userId: z.string().describe("ID of the user to add") }),
    inputs: { chatId: "chatIdChatMembers", userId: "userIdChatMember" },
    doing: "adding chat member",
    run: async (a, api) => {
      need(a, ["chatId", "userId"], BOTH_USER);
      await apiCall(api, { method: "POST", path: `${chatPath(a)}/members`, body: memberOf(a.userId) });
      return { success: true, message: "Member added to chat successfully" };
    },
  },
  {
    option: "removeChatMember",
    name: "remove_chat_member",
    description: "Remove a member from a chat",
    schema: z.object({ chatId: chatId(), userId: z.string().describe("ID of the user to remove") }),
    inputs: { chatId: "chatIdChatMembers", userId: "userIdChatMember" },
    doing: "removing chat member",
    run: async (a, api) => {
      need(a, ["chatId", "userId"], BOTH_USER);
      // The membership's id, found by the user's.
      const members = (await apiCall(api, { path: `${chatPath(a)}/members` })) as Listed<{ id: string; userId?: string }>;
      const member = members.value?.find((m) => m.userId === a.userId);
      if (!member) throw new ToolCallError("User is not a member of this chat");
      await apiCall(api, { method: "DELETE", path: `${chatPath(a)}/members/${seg(member.id)}` });
      return { success: true, message: "Member removed from chat successfully" };
    },
  },
  {
    option: "pinMessage",
    name: "pin_message",
    description: "Pin a message in a chat",
    schema: z.object({ chatId: chatId(), messageId: z.string().describe("ID of the message to pin") }),
    inputs: { chatId: "chatIdPinMessage", messageId: "messageIdPinMessage" },
    doing: "pinning message",
    run: async (a, api) => {
      need(a, ["chatId", "messageId"], BOTH_MESSAGE);
      const body = { message: { "@odata.bind": `${GRAPH_URL}/chats(${odataString(a.chatId)})/messages(${odataString(a.messageId)})` } };
      await apiCall(api, { method: "POST", path: `${chatPath(a)}/pinnedMessages`, body });
      return { success: true, message: "Message pinned successfully" };
    },
  },
  {
    option: "unpinMessage",
    name: "unpin_message",
    description: "Unpin a message from a chat",
    schema: z.object({ chatId: chatId(), messageId: z.string().describe("ID of the message to unpin") }),
    inputs: { chatId: "chatIdPinMessage", messageId: "messageIdPinMessage" },
    doing: "unpinning message",
    run: async (a, api) => {
      need(a, ["chatId", "messageId"], BOTH_MESSAGE);
      // The pin's id, found by its message's; Graph lists the message only when expanded (Flowise omits it).
      const pinned = (await apiCall(api, { path: `${chatPath(a)}/pinnedMessages`, query: { $expand: "message" } })) as Listed<{
        id: string;
        message?: { id?: string };
      }>;
      const pin = pinned.value?.find((p) => p.message?.id === a.messageId);
      if (!pin) throw new ToolCallError("Message is not pinned in this chat");
      await apiCall(api, { method: "DELETE", path: `${chatPath(a)}/pinnedMessages/${seg(pin.id)}` });
      return { success: true, message: "Message unpinned successfully" };
    },
  },
];
