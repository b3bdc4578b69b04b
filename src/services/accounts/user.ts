// Flowise's user object, as its web UI reads it after signing in (STUDIO.md): edgeflow has one
// organisation and one workspace, and every signed-in person holds every permission.
import type { z } from "@hono/zod-openapi";
import { API_KEY_PERMISSIONS } from "../../schemas/permissions";
import type { FlowiseUser } from "../../schemas/accounts";
import type { Account } from "./accounts";

// Fixed ids: the UI shows and sends them back, but edgeflow has nothing to tell apart.
const ORGANIZATION_ID = "00000000-0000-4000-8000-000000000001";
const WORKSPACE_ID = "00000000-0000-4000-8000-000000000002";
const WORKSPACE_NAME = "Default Workspace";
const ROLE = "owner";

const EVERY_PERMISSION = Object.values(API_KEY_PERMISSIONS)
  .flat()
  .map((p) => p.key);

export function flowiseUser(account: Pick<Account, "id" | "email" | "name">): z.infer<typeof FlowiseUser> {
  return {
    id: account.id,
    email: account.email,
    name: account.name,
    roleId: ROLE,
    activeOrganizationId: ORGANIZATION_ID,
    activeOrganizationSubscriptionId: "",
    activeOrganizationCustomerId: "",
    activeOrganizationProductId: "",
    isOrganizationAdmin: true,
    activeWorkspaceId: WORKSPACE_ID,
    activeWorkspace: WORKSPACE_NAME,
    assignedWorkspaces: [{ id: WORKSPACE_ID, name: WORKSPACE_NAME, role: ROLE, organizationId: ORGANIZATION_ID }],
    permissions: EVERY_PERMISSION,
    features: {},
    isSSO: false,
  };
}
