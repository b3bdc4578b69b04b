// The studio's sign-in, in the shapes Flowise 3.1.4's web UI sends and reads in open-source mode
// (STUDIO.md): its setup page's `{user: {name, email, credential}}`, its sign-in page's
// `{email, password}`, and the user object it keeps in localStorage.
import { z } from "@hono/zod-openapi";
import { uuid } from "./common";

/** Emails are compared lower-cased: one account per address however it is typed. */
export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, "must be at most 254 characters")
  .pipe(z.email("must be an email address"))
  .openapi({ type: "string", format: "email", example: "owner@example.com" });

/** Long enough to resist guessing; bounded so hashing cannot be made to work on megabytes. */
export const Password = z
  .string()
  .min(8, "must be at least 8 characters")
  .max(256, "must be at most 256 characters")
  .openapi({ type: "string", format: "password" });

const AccountName = z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters");

export const RegisterBody = z
  .object({
    user: z.object({ name: AccountName, email: Email, credential: Password }),
  })
  .openapi("RegisterAccount");

export const LoginBody = z.object({ email: Email, password: z.string().max(256, "must be at most 256 characters") }).openapi("Login");

export const PasswordResetBody = z.object({ email: Email, password: Password }).openapi("PasswordReset");

export const AccountAnswer = z
  .object({ id: z.string(), email: z.string(), name: z.string(), createdDate: z.string(), message: z.string() })
  .openapi("Account");

const Workspace = z.object({ id: z.string(), name: z.string(), role: z.string(), organizationId: z.string() });

/** Flowise's user object: what the UI stores once signed in (open source: one organisation, one workspace). */
export const FlowiseUser = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    roleId: z.string(),
    activeOrganizationId: z.string(),
    activeOrganizationSubscriptionId: z.string(),
    activeOrganizationCustomerId: z.string(),
    activeOrganizationProductId: z.string(),
    isOrganizationAdmin: z.boolean(),
    activeWorkspaceId: z.string(),
    activeWorkspace: z.string(),
    assignedWorkspaces: z.array(Workspace),
    permissions: z.array(z.string()),
    features: z.record(z.string(), z.unknown()),
    isSSO: z.boolean(),
  })
  .openapi("FlowiseUser");

export const Settings = z.object({ PLATFORM_TYPE: z.literal("open source") }).openapi("Settings");
export const Resolve = z.object({ redirectUrl: z.enum(["/organization-setup", "/signin"]) }).openapi("ResolveLogin");
export const LoggedOut = z.object({ message: z.literal("logged_out"), redirectTo: z.string() }).openapi("LoggedOut");
export const LoginMethods = z.object({ providers: z.array(z.string()) }).openapi("LoginMethods");

export const UserQuery = z.object({ id: uuid() });

/** The Account Settings page's two forms: the profile (name, email), and the password (old, new, confirmed). */
export const ProfileUpdate = z
  .object({
    id: uuid(),
    name: AccountName.optional(),
    email: Email.optional(),
    oldPassword: z.string().max(256, "must be at most 256 characters").optional(),
    newPassword: Password.optional(),
    confirmPassword: z.string().max(256, "must be at most 256 characters").optional(),
  })
  .openapi("ProfileUpdate");

export const PublicAccount = z
  .object({ id: z.string(), email: z.string(), name: z.string(), createdDate: z.string() })
  .openapi("PublicAccount");
