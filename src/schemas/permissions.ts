// Flowise 3's API-key permissions, by name, so keys and scripts move over unchanged. The list is
// what Flowise serves at GET /api/v1/auth/permissions/API_KEY (its role-only categories,
// `workspace` and `admin`, are not API-key permissions), plus Flowise's two workspace permissions
// that guard its /export-import routes: edgeflow has no roles, so a key must be able to hold them.
// Many name features edgeflow does not have (datasets, evaluations, …): they are accepted on a key
// and simply grant nothing here.

/** Each entry: name suffix, Flowise's description, and its editions (O open source, E enterprise, C cloud). */
const CATALOGUE: Record<string, [string, string, string][]> = {
  chatflows: [
    ["view", "View", "OEC"],
    ["create", "Create", "OEC"],
    ["update", "Update", "OEC"],
    ["duplicate", "Duplicate", "OEC"],
    ["delete", "Delete", "OEC"],
    ["export", "Export", "OEC"],
    ["import", "Import", "OEC"],
    ["config", "Edit Configuration", "OEC"],
    ["domains", "Allowed Domains", "OEC"],
  ],
  agentflows: [
    ["view", "View", "OEC"],
    ["create", "Create", "OEC"],
    ["update", "Update", "OEC"],
    ["duplicate", "Duplicate", "OEC"],
    ["delete", "Delete", "OEC"],
    ["export", "Export", "OEC"],
    ["import", "Import", "OEC"],
    ["config", "Edit Configuration", "OEC"],
    ["domains", "Allowed Domains", "OEC"],
  ],
  tools: [
    ["view", "View", "OEC"],
    ["create", "Create", "OEC"],
    ["update", "Update", "OEC"],
    ["delete", "Delete", "OEC"],
    ["export", "Export", "OEC"],
  ],
  assistants: [
    ["view", "View", "OEC"],
    ["create", "Create", "OEC"],
    ["update", "Update", "OEC"],
    ["delete", "Delete", "OEC"],
  ],
  credentials: [
    ["view", "View", "OEC"],
    ["create", "Create", "OEC"],
    ["update", "Update", "OEC"],
    ["delete", "Delete", "OEC"],
    ["share", "Share", "EC"],
  ],
  variables: [
    ["view", "View", "OEC"],
    ["create", "Create", "OEC"],
    ["update", "Update", "OEC"],
    ["delete", "Delete", "OEC"],
  ],
  apikeys: [
    ["view", "View", "OEC"],
    ["create", "Create", "OEC"],
    ["update", "Update", "OEC"],
    ["delete", "Delete", "OEC"],
  ],
  documentStores: [
    ["view", "View", "OEC"],
    ["create", "Create", "OEC"],
    ["update", "Update", "OEC"],
    ["delete", "Delete Document Store", "OEC"],
    ["add-loader", "Add Document Loader", "OEC"],
    ["delete-loader", "Delete Document Loader", "OEC"],
    ["preview-process", "Preview & Process Document Chunks", "OEC"],
    ["upsert-config", "Upsert Config", "OEC"],
  ],
  datasets: [
    ["view", "View", "EC"],
    ["create", "Create", "EC"],
    ["update", "Update", "EC"],
    ["delete", "Delete", "EC"],
  ],
  executions: [
    ["view", "View", "OEC"],
    ["update", "Update", "OEC"],
    ["delete", "Delete", "OEC"],
  ],
  evaluators: [
    ["view", "View", "EC"],
    ["create", "Create", "EC"],
    ["update", "Update", "EC"],
    ["delete", "Delete", "EC"],
  ],
  evaluations: [
    ["view", "View", "EC"],
    ["create", "Create", "EC"],
    ["update", "Update", "EC"],
    ["delete", "Delete", "EC"],
    ["run", "Run Again", "EC"],
  ],
  templates: [
    ["marketplace", "View Marketplace Templates", "OEC"],
    ["custom", "View Custom Templates", "OEC"],
    ["custom-delete", "Delete Custom Template", "OEC"],
    ["toolexport", "Export Tool as Template", "OEC"],
    ["flowexport", "Export Flow as Template", "OEC"],
    ["custom-share", "Share Custom Templates", "EC"],
  ],
  // Flowise's role permissions of its export-import routes (role-only there; edgeflow has keys only).
  workspace: [
    ["export", "Export Data within Workspace", "OEC"],
    ["import", "Import Data within Workspace", "OEC"],
  ],
  // Studio accounts (POST /account/register past the first, PUT /account/password): a key holding
  // it can make itself a person who signs in, so it is as strong as full access.
  users: [["manage", "Manage Users", "OEC"]],
  logs: [["view", "View Logs", "E"]],
  loginActivity: [["view", "View Login Activity", "E"]],
};

export interface PermissionEntry {
  key: string;
  value: string;
  isOpenSource: boolean;
  isEnterprise: boolean;
  isCloud: boolean;
}

/** The answer of GET /auth/permissions/API_KEY: Flowise's JSON, category → entries. */
export const API_KEY_PERMISSIONS: Record<string, PermissionEntry[]> = Object.fromEntries(
  Object.entries(CATALOGUE).map(([category, entries]) => [
    category,
    entries.map(([suffix, value, editions]) => ({
      key: `${category}:${suffix}`,
      value,
      isOpenSource: editions.includes("O"),
      isEnterprise: editions.includes("E"),
      isCloud: editions.includes("C"),
    })),
  ]),
);

const NAMES: ReadonlySet<string> = new Set(
  Object.values(API_KEY_PERMISSIONS)
    .flat()
    .map((p) => p.key),
);

export const isPermissionName = (name: string): boolean => NAMES.has(name);

/** The categories whose records edgeflow guards per record kind (see access.ts). */
export type RecordCategory = "chatflows" | "agentflows" | "assistants" | "documentStores";
export type RecordAction = "view" | "create" | "update" | "delete";
