// Studio sessions, kept in D1 so that signing out (or a password reset) ends them at once. The
// cookie holds a random token; the row holds only its SHA-256. A session lets requests through
// until `accessUntil` (ACCESS_MINUTES after sign-in or the last refresh); after that the UI is told
// "Token Expired" and calls POST /auth/refreshToken, which moves `accessUntil` on and `expiresAt`
// (the idle limit, SESSION_IDLE_MINUTES) with it — so a session ends once nobody has used it for
// that long, with no write on ordinary requests. Reads and writes go to D1's primary (primaryDb):
// a replica a moment behind would not yet know a new session, or would still know a revoked one.
import { and, eq, gt, lt } from "drizzle-orm";
import { configOf } from "../../config";
import { createDb } from "../../db";
import type { Db, Env } from "../../env";
import { accountSession } from "../../db/schema";
import { randomToken, sha256Hex } from "../../lib/crypto";
import { type Account, findAccount } from "./accounts";

/** How long a session answers requests before the UI must refresh it (never longer than the idle limit). */
const ACCESS_MINUTES = 15;
const MINUTE_MS = 60_000;

export const primaryDb = (env: Env): Db => createDb(env.DB);

export interface SessionTimes {
  accessMs: number;
  idleMs: number;
}

export function sessionTimes(env: Env): SessionTimes {
  const idleMs = configOf(env).SESSION_IDLE_MINUTES * MINUTE_MS;
  return { idleMs, accessMs: Math.min(ACCESS_MINUTES * MINUTE_MS, idleMs) };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A new session for the account: answers the cookie's token (shown once; only its hash is kept). */
export async function startSession(db: Db, accountId: string, times: SessionTimes, now = Date.now()): Promise<string> {
  const token = randomToken(32);
  await db.batch([
    // The account's ended sessions go as a new one starts: the table does not grow without bound.
    db.delete(accountSession).where(and(eq(accountSession.accountId, accountId), lt(accountSession.expiresAt, iso(now)))),
    db.insert(accountSession).values({
      id: await sha256Hex(token),
      accountId,
      accessUntil: iso(now + times.accessMs),
      expiresAt: iso(now + times.idleMs),
      createdDate: iso(now),
    }),
  ]);
  return token;
}

/** "valid": requests pass; "refresh": the UI must refresh it first; "ended": signed out, expired or never was. */
export type SessionState = { state: "valid"; accountId: string } | { state: "refresh" } | { state: "ended" };

export async function checkSession(db: Db, token: string, now = Date.now()): Promise<SessionState> {
  const row = (
    await db
      .select()
      .from(accountSession)
      .where(eq(accountSession.id, await sha256Hex(token)))
      .limit(1)
  )[0];
  if (!row || row.expiresAt <= iso(now)) return { state: "ended" };
  return row.accessUntil > iso(now) ? { state: "valid", accountId: row.accountId } : { state: "refresh" };
}

/** Moves a live session's times on; answers its account, or undefined when it has ended. */
export async function refreshSession(db: Db, token: string, times: SessionTimes, now = Date.now()): Promise<Account | undefined> {
  const id = await sha256Hex(token);
  const [row] = await db
    .update(accountSession)
    .set({ accessUntil: iso(now + times.accessMs), expiresAt: iso(now + times.idleMs) })
    .where(and(eq(accountSession.id, id), gt(accountSession.expiresAt, iso(now))))
    .returning({ accountId: accountSession.accountId });
  return row ? findAccount(db, row.accountId) : undefined;
}

/** Ends the session with this token (signing out): later requests with it are refused. */
export async function endSession(db: Db, token: string): Promise<void> {
  await db.delete(accountSession).where(eq(accountSession.id, await sha256Hex(token)));
}
