// A signed-in person's own account, as the studio's Account Settings page changes it: the name and
// email, and the password — which takes the old one (checked like a sign-in, counted against the
// same limits) and ends the account's other sessions, keeping the one in use.
import { and, eq, ne } from "drizzle-orm";
import type { Db, Env } from "../../env";
import { badRequest, conflict, notFound } from "../../errors";
import { isUniqueViolation } from "../../db/errors";
import { account, accountSession } from "../../db/schema";
import { hashPassword, verifyPassword } from "../../lib/password";
import { sha256Hex } from "../../lib/crypto";
import { nowIso } from "../../lib/time";
import { countSignInAttempt } from "../../rate-limit/sign-in";
import { type Account, findAccount } from "./accounts";

export interface ProfilePatch {
  name?: string;
  email?: string;
  oldPassword?: string;
  newPassword?: string;
  confirmPassword?: string;
}

export interface Caller {
  /** The session's token (the one kept when the password changes). */
  sessionToken: string;
  clientIp: string;
}

async function newPasswordHash(env: Env, found: Account, patch: ProfilePatch, clientIp: string): Promise<string | undefined> {
  if (patch.newPassword === undefined) return undefined;
  if (patch.newPassword !== patch.confirmPassword) throw badRequest("The new password and its confirmation differ");
  if (patch.oldPassword === undefined) throw badRequest("oldPassword is required to set a new password");
  const attempt = await countSignInAttempt(env, found.email, clientIp);
  // 400, not 401: the UI answers any 401 but "Token Expired" by signing the person out.
  if (!(await verifyPassword(patch.oldPassword, found.passwordHash))) throw badRequest("The old password is not right");
  await attempt.succeeded();
  return hashPassword(patch.newPassword);
}

export async function updateOwnAccount(env: Env, db: Db, id: string, patch: ProfilePatch, caller: Caller): Promise<Account> {
  const found = await findAccount(db, id);
  if (!found) throw notFound(`Account ${id} not found`);
  const passwordHash = await newPasswordHash(env, found, patch, caller.clientIp);
  const updated: Account = {
    ...found,
    name: patch.name ?? found.name,
    email: patch.email ?? found.email,
    passwordHash: passwordHash ?? found.passwordHash,
    updatedDate: nowIso(),
  };
  const write = db.update(account).set(updated).where(eq(account.id, id));
  try {
    if (passwordHash) {
      const keep = await sha256Hex(caller.sessionToken);
      await db.batch([write, db.delete(accountSession).where(and(eq(accountSession.accountId, id), ne(accountSession.id, keep)))]);
    } else {
      await write;
    }
  } catch (err) {
    if (isUniqueViolation(err, "account.email")) throw conflict(`An account with the email ${patch.email} already exists`);
    throw err;
  }
  return updated;
}
