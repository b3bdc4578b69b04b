// Flowise's `gmail` tool node (credential gmailOAuth2): by `gmailType` (drafts, messages, labels,
// threads) the operations chosen in draftActions / messageActions / labelActions / threadActions,
// each a tool with Flowise's name, description and arguments, calling Gmail API v1 at
// {GMAIL_BASE_URL|https://gmail.googleapis.com}/gmail/v1/users/me/… with the credential's fresh token.
// Answers are Gmail's JSON as text; deletes answer Flowise's "Draft <id> deleted successfully".
// Messages and drafts go as `raw` RFC 2822 (gmail-mime.ts). The node's per-operation inputs fix
// arguments (gmail-actions.ts): draftMaxResults, draftTo…draftBcc, draftId, draftUpdateTo/Subject/
// Body, messageMaxResults, messageQuery, messageTo…messageBcc, messageId, messageAdd/RemoveLabelIds,
// labelName, labelColor, labelId, threadMaxResults, threadQuery, threadId, threadAdd/RemoveLabelIds.
// update_label also takes the label's `id` from the model (Flowise's schema has none, so only the
// node's labelId could name it).
import { z } from "zod";
import { type OAuth2Api, apiCall } from "../oauth2/api";
import { ToolCallError } from "../service";
import type { ToolDeps } from "../types";
import { type Args, type NodeAction, type NodeSpec, idSchema, nodeTools, seg } from "./gmail-actions";
import { mimeMessage } from "./gmail-mime";
import { readPages, wantedCount } from "./pages";

const ME = "/gmail/v1/users/me";

const listSchema = z.object({
  maxResults: z.number().optional().default(100).describe("Maximum number of results to return"),
  query: z.string().optional().describe("Query string for filtering results (Gmail search syntax)"),
});
const mailSchema = z.object({
  to: z.string().describe("Recipient email address(es), comma-separated"),
  subject: z.string().optional().describe("Email subject"),
  body: z.string().optional().describe("Email body content"),
  cc: z.string().optional().describe("CC email address(es), comma-separated"),
  bcc: z.string().optional().describe("BCC email address(es), comma-separated"),
});
const updateDraftSchema = mailSchema.extend({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, "Draft ID must contain only URL-safe characters")
    .describe("ID of the draft to update"),
});
const modifySchema = z.object({
  id: z.string().describe("ID of the resource"),
  addLabelIds: z.array(z.string()).optional().describe("Label IDs to add"),
  removeLabelIds: z.array(z.string()).optional().describe("Label IDs to remove"),
});
const labelSchema = z.object({
  labelName: z.string().describe("Name of the label"),
  labelColor: z.string().optional().describe("Color of the label (hex color code)"),
});
const updateLabelSchema = labelSchema.extend({ id: z.string().optional().describe("ID of the label to update") });

/** The id argument, or Flowise's "Error: Draft ID is required". */
function idOf(args: Args, what: string): string {
  const id = args.id;
  if (typeof id !== "string" || !id) throw new ToolCallError(`${what} ID is required`);
  return id;
}

// Gmail serves at most 500 per page (a larger maxResults is cut silently): a larger count is read page
// by page (pages.ts); the default is Gmail's 100.
const list = (kind: string) => (args: Args, api: OAuth2Api) =>
  readPages(api, {
    path: `${ME}/${kind}`,
    query: { maxResults: undefined, q: args.query },
    key: kind,
    sizeParam: "maxResults",
    cap: 500,
    wanted: wantedCount(args.maxResults, 100),
  });

const mail = (args: Args) => mimeMessage({ to: args.to, subject: args.subject, body: args.body, cc: args.cc, bcc: args.bcc });

const modifyBody = (args: Args) => ({
  ...(args.addLabelIds?.length ? { addLabelIds: args.addLabelIds } : {}),
  ...(args.removeLabelIds?.length ? { removeLabelIds: args.removeLabelIds } : {}),
});

const labelBody = (args: Args) => ({
  ...(args.labelName ? { name: args.labelName } : {}),
  ...(args.labelColor ? { color: { backgroundColor: args.labelColor } } : {}),
});

/** get, modify, trash, untrash and delete of a message or a thread. */
function itemActions(kind: "messages" | "threads", one: "message" | "thread", input: string): NodeAction[] {
  const What = one === "message" ? "Message" : "Thread";
  const at = (args: Args) => `${ME}/${kind}/${seg(idOf(args, What))}`;
  const id = { id: input };
  return [
    {
      option: `get${What}`,
      tool: `get_${one}`,
      description: `Get a specific ${one} from Gmail`,
      schema: idSchema,
      fixed: id,
      failure: `Error getting ${one}`,
      run: (args, api) => apiCall(api, { path: at(args) }),
    },
    {
      option: `modify${What}`,
      tool: `modify_${one}`,
      description: `Modify labels on a ${one} in Gmail`,
      schema: modifySchema,
      fixed: { ...id, addLabelIds: [`${one}AddLabelIds`, "list"], removeLabelIds: [`${one}RemoveLabelIds`, "list"] },
      failure: `Error modifying ${one}`,
      run: (args, api) => apiCall(api, { method: "POST", path: `${at(args)}/modify`, body: modifyBody(args) }),
    },
    {
      option: `trash${What}`,
      tool: `trash_${one}`,
      description: `Move a ${one} to trash in Gmail`,
      schema: idSchema,
      fixed: id,
      failure: `Error moving ${one} to trash`,
      run: (args, api) => apiCall(api, { method: "POST", path: `${at(args)}/trash` }),
    },
    {
      option: `untrash${What}`,
      tool: `untrash_${one}`,
      description: `Remove a ${one} from trash in Gmail`,
      schema: idSchema,
      fixed: id,
      failure: `Error removing ${one} from trash`,
      run: (args, api) => apiCall(api, { method: "POST", path: `${at(args)}/untrash` }),
    },
    {
      option: `delete${What}`,
      tool: `delete_${one}`,
      description: `Permanently delete a ${one} from Gmail`,
      schema: idSchema,
      fixed: id,
      failure: `Error deleting ${one}`,
      run: async (args, api) => {
        await apiCall(api, { method: "DELETE", path: at(args) });
        return `${What} ${args.id} deleted successfully`;
      },
    },
  ];
}

const draftAt = (args: Args) => `${ME}/drafts/${seg(idOf(args, "Draft"))}`;
const draftId = { id: "draftId" };

const drafts: NodeAction[] = [
  {
    option: "listDrafts",
    tool: "list_drafts",
    description: "List drafts in Gmail mailbox",
    schema: listSchema,
    fixed: { maxResults: ["draftMaxResults", "number"] },
    failure: "Error listing drafts",
    run: list("drafts"),
  },
  {
    option: "createDraft",
    tool: "create_draft",
    description: "Create a new draft in Gmail",
    schema: mailSchema,
    fixed: { to: "draftTo", subject: "draftSubject", body: "draftBody", cc: "draftCc", bcc: "draftBcc" },
    failure: "Error creating draft",
    run: (args, api) => apiCall(api, { method: "POST", path: `${ME}/drafts`, body: { message: { raw: mail(args) } } }),
  },
  {
    option: "getDraft",
    tool: "get_draft",
    description: "Get a specific draft from Gmail",
    schema: idSchema,
    fixed: draftId,
    failure: "Error getting draft",
    run: (args, api) => apiCall(api, { path: draftAt(args) }),
  },
  {
    option: "updateDraft",
    tool: "update_draft",
    description: "Update a specific draft in Gmail",
    schema: updateDraftSchema,
    fixed: { ...draftId, to: "draftUpdateTo", subject: "draftUpdateSubject", body: "draftUpdateBody" },
    failure: "Error updating draft",
    run: (args, api) => apiCall(api, { method: "PUT", path: draftAt(args), body: { message: { raw: mail(args) } } }),
  },
  {
    option: "sendDraft",
    tool: "send_draft",
    description: "Send a specific draft from Gmail",
    schema: idSchema,
    fixed: draftId,
    failure: "Error sending draft",
    run: (args, api) => apiCall(api, { method: "POST", path: `${ME}/drafts/send`, body: { id: idOf(args, "Draft") } }),
  },
  {
    option: "deleteDraft",
    tool: "delete_draft",
    description: "Delete a specific draft from Gmail",
    schema: idSchema,
    fixed: draftId,
    failure: "Error deleting draft",
    run: async (args, api) => {
      await apiCall(api, { method: "DELETE", path: draftAt(args) });
      return `Draft ${args.id} deleted successfully`;
    },
  },
];

const [getMessage, ...moreMessage] = itemActions("messages", "message", "messageId");
const messages: NodeAction[] = [
  {
    option: "listMessages",
    tool: "list_messages",
    description: "List messages in Gmail mailbox",
    schema: listSchema,
    fixed: { maxResults: ["messageMaxResults", "number"], query: "messageQuery" },
    failure: "Error listing messages",
    run: list("messages"),
  },
  getMessage,
  {
    option: "sendMessage",
    tool: "send_message",
    description: "Send a new message via Gmail",
    schema: mailSchema,
    fixed: { to: "messageTo", subject: "messageSubject", body: "messageBody", cc: "messageCc", bcc: "messageBcc" },
    failure: "Error sending message",
    run: (args, api) => apiCall(api, { method: "POST", path: `${ME}/messages/send`, body: { raw: mail(args) } }),
  },
  ...moreMessage,
];

const labelAt = (args: Args) => `${ME}/labels/${seg(idOf(args, "Label"))}`;
const labelFields = { labelName: "labelName", labelColor: "labelColor" };
const labels: NodeAction[] = [
  {
    option: "listLabels",
    tool: "list_labels",
    description: "List labels in Gmail mailbox",
    schema: z.object({}),
    failure: "Error listing labels",
    run: (_args, api) => apiCall(api, { path: `${ME}/labels` }),
  },
  {
    option: "getLabel",
    tool: "get_label",
    description: "Get a specific label from Gmail",
    schema: idSchema,
    fixed: { id: "labelId" },
    failure: "Error getting label",
    run: (args, api) => apiCall(api, { path: labelAt(args) }),
  },
  {
    option: "createLabel",
    tool: "create_label",
    description: "Create a new label in Gmail",
    schema: labelSchema,
    fixed: labelFields,
    failure: "Error creating label",
    run: (args, api) => {
      if (!args.labelName) throw new ToolCallError("Label name is required");
      const body = { name: args.labelName, labelListVisibility: "labelShow", messageListVisibility: "show", ...labelBody(args) };
      return apiCall(api, { method: "POST", path: `${ME}/labels`, body });
    },
  },
  {
    option: "updateLabel",
    tool: "update_label",
    description: "Update a label in Gmail",
    schema: updateLabelSchema,
    fixed: { id: "labelId", ...labelFields },
    failure: "Error updating label",
    run: (args, api) => apiCall(api, { method: "PUT", path: labelAt(args), body: labelBody(args) }),
  },
  {
    option: "deleteLabel",
    tool: "delete_label",
    description: "Delete a label from Gmail",
    schema: idSchema,
    fixed: { id: "labelId" },
    failure: "Error deleting label",
    run: async (args, api) => {
      await apiCall(api, { method: "DELETE", path: labelAt(args) });
      return `Label ${args.id} deleted successfully`;
    },
  },
];

const threads: NodeAction[] = [
  {
    option: "listThreads",
    tool: "list_threads",
    description: "List threads in Gmail mailbox",
    schema: listSchema,
    fixed: { maxResults: ["threadMaxResults", "number"], query: "threadQuery" },
    failure: "Error listing threads",
    run: list("threads"),
  },
  ...itemActions("threads", "thread", "threadId"),
];

const GMAIL: NodeSpec = {
  service: "Gmail",
  credentialName: "gmailOAuth2",
  typeInput: "gmailType",
  types: {
    drafts: { input: "draftActions", actions: drafts },
    messages: { input: "messageActions", actions: messages },
    labels: { input: "labelActions", actions: labels },
    threads: { input: "threadActions", actions: threads },
  },
  baseVar: "GMAIL_BASE_URL",
  host: "https://gmail.googleapis.com",
};

export const gmailTools = async (inputs: Record<string, unknown>, deps: ToolDeps) => nodeTools(GMAIL, inputs, deps);
