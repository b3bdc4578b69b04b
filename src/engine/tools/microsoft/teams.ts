// microsoftTeams (credential microsoftTeamsOAuth2): Flowise's channel, chat and chat message actions
// over Microsoft Graph's /teams/{id}/channels, /chats and /me/chats. Each tool answers Flowise's
// JSON ({success, channels, count, …}); a missing id is an error the model reads.
import { z } from "zod";
import type { ToolDeps } from "../types";
import { apiCall } from "../oauth2/api";
import { ToolCallError } from "../service";
import { type Args, type GraphAction, type GraphNode, graphTools, memberOf, need, seg } from "./graph";
import { chatActions } from "./teams-chats";
import { chatMessageActions } from "./teams-messages";

const teamId = (description = "ID of the team that contains the channel") => z.string().describe(description);
const channelId = (description: string) => z.string().describe(description);
const channelPath = (a: Args) => `/teams/${seg(a.teamId)}/channels/${seg(a.channelId)}`;
const BOTH = "Both Team ID and Channel ID are required";
const ALL = "Team ID, Channel ID, and User ID are all required";

/** archive / unarchive: a POST with an empty body, then Flowise's sentence. */
const archiving = (verb: "archive" | "unarchive", doing: string): GraphAction => ({
  option: `${verb}Channel`,
  name: `${verb}_channel`,
  description: `${verb === "archive" ? "Archive" : "Unarchive"} a channel in a team`,
  schema: z.object({ teamId: teamId(), channelId: channelId(`ID of the channel to ${verb}`) }),
  inputs: { teamId: "teamIdDeleteChannel", channelId: "channelIdDeleteChannel" },
  doing,
  run: async (a, api) => {
    need(a, ["teamId", "channelId"], BOTH);
    await apiCall(api, { method: "POST", path: `${channelPath(a)}/${verb}`, body: {} });
    return { success: true, message: `Channel ${verb}d successfully` };
  },
});

const channelActions: GraphAction[] = [
  {
    option: "listChannels",
    name: "list_channels",
    description: "List all channels in a team",
    schema: z.object({
      teamId: teamId("ID of the team to list channels from"),
      maxResults: z.number().optional().default(50).describe("Maximum number of channels to return"),
    }),
    inputs: { teamId: "teamIdListChannels", maxResults: "maxResultsListChannels" },
    doing: "listing channels",
    run: async (a, api) => {
      need(a, ["teamId"], "Team ID is required to list channels");
      const result = (await apiCall(api, { path: `/teams/${seg(a.teamId)}/channels` })) as { value?: unknown[] };
      // Graph's channel list takes no $top: cut here, as Flowise does.
      const channels = result.value ?? [];
      const limited = channels.slice(0, a.maxResults ?? 50);
      return { success: true, channels: limited, count: limited.length, total: channels.length };
    },
  },
  {
    option: "getChannel",
    name: "get_channel",
    description: "Get details of a specific channel",
    schema: z.object({ teamId: teamId(), channelId: channelId("ID of the channel to retrieve") }),
    inputs: { teamId: "teamIdGetChannel", channelId: "channelIdGetChannel" },
    doing: "getting channel",
    run: async (a, api) => {
      need(a, ["teamId", "channelId"], BOTH);
      return { success: true, channel: await apiCall(api, { path: channelPath(a) }) };
    },
  },
  {
    option: "createChannel",
    name: "create_channel",
    description: "Create a new channel in a team",
    schema: z.object({
      teamId: teamId("ID of the team to create the channel in"),
      displayName: z.string().describe("Display name of the channel"),
      description: z.string().optional().describe("Description of the channel"),
      membershipType: z.enum(["standard", "private", "shared"]).optional().default("standard").describe("Type of channel membership"),
    }),
    inputs: {
      teamId: "teamIdCreateChannel",
      displayName: "displayNameCreateChannel",
      description: "descriptionCreateChannel",
      membershipType: "membershipTypeCreateChannel",
    },
    doing: "creating channel",
    run: async (a, api) => {
      need(a, ["teamId", "displayName"], "Team ID and Display Name are required to create a channel");
      const body = {
        displayName: a.displayName,
        membershipType: a.membershipType || "standard",
        ...(a.description && { description: a.description }),
      };
      const channel = await apiCall(api, { method: "POST", path: `/teams/${seg(a.teamId)}/channels`, body });
      return { success: true, channel, message: `Channel "${a.displayName}" created successfully` };
    },
  },
  {
    option: "updateChannel",
    name: "update_channel",
    description: "Update an existing channel",
    schema: z.object({
      teamId: teamId(),
      channelId: channelId("ID of the channel to update"),
      displayName: z.string().optional().describe("New display name of the channel"),
      description: z.string().optional().describe("New description of the channel"),
    }),
    inputs: { teamId: "teamIdUpdateChannel", channelId: "channelIdUpdateChannel", displayName: "displayNameUpdateChannel" },
    doing: "updating channel",
    run: async (a, api) => {
      need(a, ["teamId", "channelId"], BOTH);
      const body = { ...(a.displayName && { displayName: a.displayName }), ...(a.description && { description: a.description }) };
      if (!Object.keys(body).length) throw new ToolCallError("At least one field to update must be provided");
      await apiCall(api, { method: "PATCH", path: channelPath(a), body });
      return { success: true, message: "Channel updated successfully" };
    },
  },
  {
    option: "deleteChannel",
    name: "delete_channel",
    description: "Delete a channel from a team",
    schema: z.object({ teamId: teamId(), channelId: channelId("ID of the channel to delete") }),
    inputs: { teamId: "teamIdDeleteChannel", channelId: "channelIdDeleteChannel" },
    doing: "deleting channel",
    run: async (a, api) => {
      need(a, ["teamId", "channelId"], BOTH);
      await apiCall(api, { method: "DELETE", path: channelPath(a) });
      return { success: true, message: "Channel deleted successfully" };
    },
  },
  archiving("archive", "archiving channel"),
  archiving("unarchive", "unarchiving channel"),
  {
    option: "listChannelMembers",
    name: "list_channel_members",
    description: "List members of a channel",
    schema: z.object({ teamId: teamId(), channelId: channelId("ID of the channel") }),
    inputs: { teamId: "teamIdChannelMembers", channelId: "channelIdChannelMembers" },
    doing: "listing channel members",
    run: async (a, api) => {
      need(a, ["teamId", "channelId"], BOTH);
      const result = (await apiCall(api, { path: `${channelPath(a)}/members` })) as { value?: unknown[] };
      return { success: true, members: result.value ?? [], count: result.value?.length ?? 0 };
    },
  },
  {
    option: "addChannelMember",
    name: "add_channel_member",
    description: "Add a member to a channel",
    schema: z.object({ teamId: teamId(), channelId: channelId("ID of the channel"), userId: z.string().describe("ID of the user to add") }),
    inputs: { teamId: "teamIdChannelMembers", channelId: "channelIdChannelMembers", userId: "userIdChannelMember" },
    doing: "adding channel member",
    run: async (a, api) => {
      need(a, ["teamId", "channelId", "userId"], ALL);
      await apiCall(api, { method: "POST", path: `${channelPath(a)}/members`, body: memberOf(a.userId) });
      return { success: true, message: "Member added to channel successfully" };
    },
  },
  {
    option: "removeChannelMember",
    name: "remove_channel_member",
    description: "Remove a member from a channel",
    schema: z.object({
      teamId: teamId(),
      channelId: channelId("ID of the channel"),
      userId: z.string().describe("ID of the user to remove"),
    }),
    inputs: { teamId: "teamIdChannelMembers", channelId: "channelIdChannelMembers", userId: "userIdChannelMember" },
    doing: "removing channel member",
    run: async (a, api) => {
      need(a, ["teamId", "channelId", "userId"], ALL);
      // The membership's id, found by the user's.
      const members = (await apiCall(api, { path: `${channelPath(a)}/members` })) as { value?: Array<{ id: string; userId?: string }> };
      const member = members.value?.find((m) => m.userId === a.userId);
      if (!member) throw new ToolCallError("User is not a member of this channel");
      await apiCall(api, { method: "DELETE", path: `${channelPath(a)}/members/${seg(member.id)}` });
      return { success: true, message: "Member removed from channel successfully" };
    },
  },
];

export const TEAMS: GraphNode = {
  node: "microsoftTeams",
  credentialName: "microsoftTeamsOAuth2",
  typeInput: "teamsType",
  groups: {
    channel: { input: "channelActions", actions: channelActions },
    chat: { input: "chatActions", actions: chatActions },
    chatMessage: { input: "chatMessageActions", actions: chatMessageActions },
  },
};

export const microsoftTeamsTools = async (inputs: Record<string, unknown>, deps: ToolDeps) => graphTools(TEAMS, inputs, deps);
