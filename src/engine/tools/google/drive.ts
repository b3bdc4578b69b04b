// Flowise's Google Drive tool (googleDriveTool, credential googleDriveOAuth2): a Type (file, folder,
// search, share) and its actions, each one tool the model calls, over Drive API v3
// (GOOGLE_DRIVE_BASE_URL, else https://www.googleapis.com; paths /drive/v3/… and /upload/drive/v3/…):
//   list_files, get_file, create_file, update_file, delete_file, copy_file, download_file,
//   create_folder, list_folder_contents, delete_folder, search_files, share_file, get_permissions,
//   remove_permission. Answers are Drive's JSON (download_file: the file's text).
// Two of Flowise's slips are mended: create_file with content always uploads multipart (Flowise's
// media-only upload drops the name: Drive calls the file "Untitled"), and update_file's `parents`
// moves the file (addParents; Flowise offers the argument and never sends it).
import { z } from "zod";
import { type OAuth2Api, apiCall } from "../oauth2/api";
import { type Args, type DefaultParam, action, commaList, flag, googleFilesTool, seg, text } from "./drive-common";
import { chosenActions } from "../oauth2/api";
import { ToolCallError } from "../service";
import { str } from "../../core/inputs";
import { readPages, wantedCount } from "./pages";
import { driveString, pagedFields } from "./wire-values";

const API = "/drive/v3";
const UPLOAD = "/upload/drive/v3";
const FOLDER = "application/vnd.google-apps.folder";
const BOUNDARY = "-------314159265358979323846";

const allDrives = z.boolean().optional().describe("Whether the requesting application supports both My Drives and shared drives");
const fromAllDrives = z.boolean().optional().describe("Include items from all drives");
const abuse = z
  .boolean()
  .optional()
  .describe("Whether the user is acknowledging the risk of downloading known malware or other abusive files");

const get = (api: OAuth2Api, path: string, query: Args = {}) => apiCall(api, { path: `${API}${path}`, query: query as never });
const send = (api: OAuth2Api, method: string, path: string, body: unknown, query: Args = {}) =>
  apiCall(api, { method, path: `${API}${path}`, query: query as never, body });

/**
 * A listing as Flowise sends it (only what is set; flags only when true), read page by page: Drive
 * refuses a pageSize outside 1–1000 (400) and may answer short pages, so a larger count follows
 * nextPageToken (pages.ts). Drive refuses an orderBy on a fullText query (400 "Sorting is not
 * supported for queries with fullText terms"): the node's orderBy is dropped for such a query.
 */
const listFiles = (api: OAuth2Api, a: Args, q: string | undefined, extra: Args = {}) =>
  readPages(api, {
    path: `${API}/files`,
    query: {
      q,
      pageSize: undefined,
      orderBy: q && /\bfullText\b/.test(q) ? undefined : text(a.orderBy),
      includeItemsFromAllDrives: flag(a.includeItemsFromAllDrives),
      supportsAllDrives: flag(a.supportsAllDrives),
      ...(extra as Record<string, string | undefined>),
    },
    key: "files",
    sizeParam: "pageSize",
    cap: 1000,
    wanted: wantedCount(a.pageSize, 10),
    pageToken: text(a.pageToken),
  });

/** Metadata and content in one multipart/related upload (RFC 2387), as Flowise builds it. */
function multipart(metadata: Record<string, unknown>, content: string, mimeType: string | undefined): string {
  return (
    `--${BOUNDARY}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n${JSON.stringify(metadata)}\r\n` +
    `--${BOUNDARY}\r\nContent-Type: ${mimeType || "application/octet-stream"}\r\n\r\n${content}\r\n--${BOUNDARY}--`
  );
}

async function createFile(a: Args, api: OAuth2Api): Promise<unknown> {
  const name = text(a.name);
  if (!name) throw new ToolCallError("File name is required");
  const metadata: Record<string, unknown> = { name };
  const parents = commaList(a.parents);
  if (parents.length) metadata.parents = parents;
  if (text(a.mimeType)) metadata.mimeType = text(a.mimeType);
  if (text(a.description)) metadata.description = text(a.description);
  const content = typeof a.content === "string" && a.content ? a.content : undefined;
  const supportsAllDrives = flag(a.supportsAllDrives);
  if (!content) return send(api, "POST", "/files", metadata, { supportsAllDrives });
  return apiCall(api, {
    method: "POST",
    path: `${UPLOAD}/files`,
    query: { supportsAllDrives, uploadType: "multipart" },
    body: multipart(metadata, content, text(a.mimeType)),
    contentType: `multipart/related; boundary="${BOUNDARY}"`,
  });
}

const listFilesSchema = z.object({
  pageSize: z.number().optional().default(10).describe("Maximum number of files to return (1-1000)"),
  pageToken: z.string().optional().describe("Token for next page of results"),
  orderBy: z.string().optional().describe("Sort order (name, folder, createdTime, modifiedTime, etc.)"),
  query: z.string().optional().describe("Search query (e.g., \"name contains 'hello'\")"),
  spaces: z.string().optional().default("drive").describe("Spaces to search (drive, appDataFolder, photos)"),
  fields: z.string().optional().describe("Fields to include in response"),
  includeItemsFromAllDrives: fromAllDrives,
  supportsAllDrives: allDrives,
});

const ACTIONS = {
  listFiles: action("list_files", "List files and folders from Google Drive", "Error listing files", listFilesSchema, (a, api) =>
    listFiles(api, a, text(a.query), { spaces: text(a.spaces), fields: pagedFields(text(a.fields)) }),
  ),
  getFile: action(
    "get_file",
    "Get file metadata from Google Drive",
    "Error getting file",
    z.object({
      fileId: z.string().describe("File ID"),
      fields: z.string().optional().describe("Fields to include in response"),
      supportsAllDrives: allDrives,
      acknowledgeAbuse: abuse,
    }),
    (a, api) =>
      get(api, `/files/${seg(a.fileId)}`, {
        fields: text(a.fields),
        supportsAllDrives: flag(a.supportsAllDrives),
        acknowledgeAbuse: flag(a.acknowledgeAbuse),
      }),
  ),
  createFile: action(
    "create_file",
    "Create a new file in Google Drive",
    "Error creating file",
    z.object({
      name: z.string().describe("File name"),
      parents: z.string().optional().describe("Comma-separated list of parent folder IDs"),
      mimeType: z.string().optional().describe("MIME type of the file"),
      description: z.string().optional().describe("File description"),
      content: z.string().optional().describe("File content (for text files)"),
      supportsAllDrives: allDrives,
    }),
    createFile,
  ),
  updateFile: action(
    "update_file",
    "Update file metadata in Google Drive",
    "Error updating file",
    z.object({
      fileId: z.string().describe("File ID to update"),
      name: z.string().optional().describe("New file name"),
      description: z.string().optional().describe("New file description"),
      starred: z.boolean().optional().describe("Whether the file is starred"),
      trashed: z.boolean().optional().describe("Whether the file is trashed"),
      parents: z.string().optional().describe("Comma-separated list of new parent folder IDs"),
      supportsAllDrives: allDrives,
    }),
    (a, api) => {
      const body: Record<string, unknown> = {};
      if (text(a.name)) body.name = text(a.name);
      if (text(a.description)) body.description = text(a.description);
      if (a.starred !== undefined) body.starred = a.starred;
      if (a.trashed !== undefined) body.trashed = a.trashed;
      const addParents = commaList(a.parents).join(",") || undefined;
      return send(api, "PATCH", `/files/${seg(a.fileId)}`, body, { supportsAllDrives: flag(a.supportsAllDrives), addParents });
    },
  ),
  deleteFile: action(
    "delete_file",
    "Delete a file from Google Drive",
    "Error deleting file",
    z.object({ fileId: z.string().describe("File ID to delete"), supportsAllDrives: allDrives }),
    async (a, api) => {
      await apiCall(api, {
        method: "DELETE",
        path: `${API}/files/${seg(a.fileId)}`,
        query: { supportsAllDrives: flag(a.supportsAllDrives) },
      });
      return "File deleted successfully";
    },
  ),
  copyFile: action(
    "copy_file",
    "Copy a file in Google Drive",
    "Error copying file",
    z.object({
      fileId: z.string().describe("File ID to copy"),
      name: z.string().describe("Name for the copied file"),
      parents: z.string().optional().describe("Comma-separated list of parent folder IDs for the copy"),
      supportsAllDrives: allDrives,
    }),
    (a, api) => {
      const parents = commaList(a.parents);
      const body = { name: a.name, ...(parents.length ? { parents } : {}) };
      return send(api, "POST", `/files/${seg(a.fileId)}/copy`, body, { supportsAllDrives: flag(a.supportsAllDrives) });
    },
  ),
  downloadFile: action(
    "download_file",
    "Download a file from Google Drive",
    "Error downloading file",
    z.object({ fileId: z.string().describe("File ID to download"), acknowledgeAbuse: abuse, supportsAllDrives: allDrives }),
    (a, api) =>
      apiCall(api, {
        path: `${API}/files/${seg(a.fileId)}`,
        query: { alt: "media", acknowledgeAbuse: flag(a.acknowledgeAbuse), supportsAllDrives: flag(a.supportsAllDrives) },
        text: true,
      }),
  ),
  createFolder: action(
    "create_folder",
    "Create a new folder in Google Drive",
    "Error creating folder",
    z.object({
      name: z.string().describe("Folder name"),
      parents: z.string().optional().describe("Comma-separated list of parent folder IDs"),
      description: z.string().optional().describe("Folder description"),
      supportsAllDrives: allDrives,
    }),
    (a, api) => {
      const parents = commaList(a.parents);
      const body: Record<string, unknown> = { name: a.name, mimeType: FOLDER, ...(parents.length ? { parents } : {}) };
      if (text(a.description)) body.description = text(a.description);
      return send(api, "POST", "/files", body, { supportsAllDrives: flag(a.supportsAllDrives) });
    },
  ),
  listFolderContents: action(
    "list_folder_contents",
    "List contents of a specific folder in Google Drive",
    "Error listing folder contents",
    z.object({
      folderId: z.string().describe("Folder ID to list contents from"),
      pageSize: z.number().optional().default(10).describe("Maximum number of files to return"),
      orderBy: z.string().optional().describe("Sort order"),
      includeItemsFromAllDrives: fromAllDrives,
      supportsAllDrives: allDrives,
    }),
    (a, api) => listFiles(api, a, `${driveString(a.folderId)} in parents`),
  ),
  deleteFolder: action(
    "delete_folder",
    "Delete a folder from Google Drive",
    "Error deleting folder",
    z.object({ folderId: z.string().describe("Folder ID to delete"), supportsAllDrives: allDrives }),
    async (a, api) => {
      await apiCall(api, {
        method: "DELETE",
        path: `${API}/files/${seg(a.folderId)}`,
        query: { supportsAllDrives: flag(a.supportsAllDrives) },
      });
      return "Folder deleted successfully";
    },
  ),
  searchFiles: action(
    "search_files",
    "Search files in Google Drive",
    "Error searching files",
    z.object({
      query: z.string().describe("Search query using Google Drive search syntax"),
      pageSize: z.number().optional().default(10).describe("Maximum number of files to return"),
      orderBy: z.string().optional().describe("Sort order"),
      includeItemsFromAllDrives: fromAllDrives,
      supportsAllDrives: allDrives,
    }),
    (a, api) => listFiles(api, a, String(a.query ?? "")),
  ),
  shareFile: action(
    "share_file",
    "Share a file in Google Drive",
    "Error sharing file",
    z.object({
      fileId: z.string().describe("File ID to share"),
      role: z.enum(["reader", "writer", "commenter", "owner"]).describe("Permission role"),
      type: z.enum(["user", "group", "domain", "anyone"]).describe("Permission type"),
      emailAddress: z.string().optional().describe("Email address (required for user/group types)"),
      domain: z.string().optional().describe("Domain name (required for domain type)"),
      allowFileDiscovery: z.boolean().optional().describe("Whether the file can be discovered by search"),
      sendNotificationEmail: z.boolean().optional().default(true).describe("Whether to send notification emails"),
      emailMessage: z.string().optional().describe("Custom message to include in notification email"),
      supportsAllDrives: allDrives,
    }),
    (a, api) => {
      const body: Record<string, unknown> = { role: a.role, type: a.type };
      if (text(a.emailAddress)) body.emailAddress = text(a.emailAddress);
      if (text(a.domain)) body.domain = text(a.domain);
      if (a.allowFileDiscovery !== undefined) body.allowFileDiscovery = a.allowFileDiscovery;
      const query = {
        sendNotificationEmail: a.sendNotificationEmail === undefined ? undefined : String(a.sendNotificationEmail),
        emailMessage: text(a.emailMessage),
        supportsAllDrives: flag(a.supportsAllDrives),
      };
      return send(api, "POST", `/files/${seg(a.fileId)}/permissions`, body, query);
    },
  ),
  getPermissions: action(
    "get_permissions",
    "Get permissions for a file in Google Drive",
    "Error getting permissions",
    z.object({ fileId: z.string().describe("File ID to get permissions for"), supportsAllDrives: allDrives }),
    (a, api) => get(api, `/files/${seg(a.fileId)}/permissions`, { supportsAllDrives: flag(a.supportsAllDrives) }),
  ),
  removePermission: action(
    "remove_permission",
    "Remove a permission from a file in Google Drive",
    "Error removing permission",
    z.object({
      fileId: z.string().describe("File ID to remove permission from"),
      permissionId: z.string().describe("Permission ID to remove"),
      supportsAllDrives: allDrives,
    }),
    async (a, api) => {
      const path = `${API}/files/${seg(a.fileId)}/permissions/${seg(a.permissionId)}`;
      await apiCall(api, { method: "DELETE", path, query: { supportsAllDrives: flag(a.supportsAllDrives) } });
      return "Permission removed successfully";
    },
  ),
};

/** Flowise's transformNodeInputsToToolArgs: node input → argument. */
const DEFAULTS: DefaultParam[] = [
  ["fileId", "fileId", "str"],
  ["folderId", "folderId", "str"],
  ["permissionId", "permissionId", "str"],
  ["fileName", "name", "str"],
  ["fileContent", "content", "str"],
  ["mimeType", "mimeType", "str"],
  ["parentFolderId", "parents", "str"],
  ["description", "description", "str"],
  ["searchQuery", "query", "str"],
  ["maxResults", "pageSize", "num"],
  ["orderBy", "orderBy", "str"],
  ["shareRole", "role", "str"],
  ["shareType", "type", "str"],
  ["emailAddress", "emailAddress", "str"],
  ["domainName", "domain", "str"],
  ["sendNotificationEmail", "sendNotificationEmail", "bool"],
  ["emailMessage", "emailMessage", "str"],
  ["includeItemsFromAllDrives", "includeItemsFromAllDrives", "bool"],
  ["supportsAllDrives", "supportsAllDrives", "bool"],
  ["fields", "fields", "str"],
  ["acknowledgeAbuse", "acknowledgeAbuse", "bool"],
];

/** The actions input of each Type. */
const TYPE_INPUT: Record<string, string> = { file: "fileActions", folder: "folderActions", search: "searchActions", share: "shareActions" };

export const googleDriveTool = googleFilesTool({
  service: "Google Drive",
  credentialName: "googleDriveOAuth2",
  field: "GOOGLE_DRIVE_BASE_URL",
  host: "https://www.googleapis.com",
  actions: ACTIONS,
  chosen: (inputs) => {
    const input = TYPE_INPUT[str(inputs.driveType) ?? ""];
    return input ? chosenActions(inputs[input]) : [];
  },
  defaults: DEFAULTS,
});
