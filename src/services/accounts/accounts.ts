// Studio accounts: who may sign in to the web UI. The first one is made by the setup page while
// none exists; later ones by someone already trusted (a signed-in person or a key with
// `users:manage`). Passwords are only ever stored as lib/password.ts hashes.
import { eq, sql } from "drizzle-orm";
import type { Db } from "../../env";
import { conflict, forbidden, notFound } from "../../errors";
import { isUniqueViolation } from "../../db/errors";
import { account, accountSession } from "../../db/schema";
import { hashPassword } from "../../lib/password";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";

export type Account = typeof account.$inferSelect;

/** What may be shown of an account: never its hash. */
export interface PublicAccount {
  id: string;
  email: string;
  name: string;
  createdDate: string;
}

const publicOf = (row: Account): PublicAccount => ({ id: row.id, email: row.email, name: row.name, createdDate: row.createdDate });

export interface NewAccount {
  name: string;
  /** Already lower-cased (schemas/accounts.ts Email). */
  email: string;
  password: string;
}

export async function hasAccounts(db: Db): Promise<boolean> {
  return (await db.select({ id: account.id }).from(account).limit(1)).length > 0;
}

export async function findAccountByEmail(db: Db, email: string): Promise<Account | undefined> {
  return (await db.select().from(account).where(eq(account.email, email)).limit(1))[0];
}

export async function findAccount(db: Db, id: string): Promise<Account | undefined> {
  return (await db.select().from(account).where(eq(account.id, id)).limit(1))[0];
}

/**
 * Creates an account. `firstOnly`: only while no account exists, checked in the INSERT itself, so
 * two setup pages racing cannot both create one (the loser is refused 403 like any later try).
 */
export async function createAccount(db: Db, input: NewAccount, firstOnly: boolean): Promise<PublicAccount> {
  const now = nowIso();
  const row: Account = {
    id: newId(),
    email: input.email,
    name: input.name,
    passwordHash: await hashPassword(input.password),
    createdDate: now,
    updatedDate: now,
  };
  try {
    if (firstOnly) {
      const result = await db.run(
        sql`INSERT INTO account (id, email, name, passwordHash, createdDate, updatedDate)
            SELECT ${row.id}, ${row.email}, ${row.name}, ${row.passwordHash}, ${now}, ${now}
            WHERE NOT EXISTS (SELECT 1 FROM account)`,
      );
      if (!result.meta.changes) throw firstAccountExists();
    } else {
      await db.insert(account).values(row);
    }
  } catch (err) {
    if (isUniqueViolation(err, "account.email")) throw conflict(`An account with the email ${input.email} already exists`);
    throw err;
  }
  return publicOf(row);
}

export const firstAccountExists = () =>
  forbidden("Forbidden: an account exists already. Sign in, or ask a signed-in person (or an API key with users:manage) to add yours");

/** Sets an account's password and signs it out everywhere (its old sessions may be someone else's). */
export async function resetPassword(db: Db, email: string, password: string): Promise<PublicAccount> {
  const found = await findAccountByEmail(db, email);
  if (!found) throw notFound(`No account has the email ${email}`);
  const passwordHash = await hashPassword(password);
  const updatedDate = nowIso();
  await db.batch([
    db.update(account).set({ passwordHash, updatedDate }).where(eq(account.id, found.id)),
    db.delete(accountSession).where(eq(accountSession.accountId, found.id)),
  ]);
  return publicOf({ ...found, updatedDate });
}
