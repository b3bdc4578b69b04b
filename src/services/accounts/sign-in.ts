// Signing in with an email and a password. One answer for an unknown email and a wrong password
// (same status, same message, and the same work: a missing account's check runs against a decoy
// hash), so the answer never tells which emails have accounts. Attempts are counted per account
// and per client (rate-limit/sign-in.ts): repeated failures are answered 429 for a while.
import type { Db, Env } from "../../env";
import { unauthorized } from "../../errors";
import { verifyPassword } from "../../lib/password";
import { countSignInAttempt } from "../../rate-limit/sign-in";
import { type Account, findAccountByEmail } from "./accounts";

export const WRONG_CREDENTIALS = "Incorrect email or password";

export async function signIn(env: Env, db: Db, email: string, password: string, clientIp: string): Promise<Account> {
  const attempt = await countSignInAttempt(env, email, clientIp);
  const found = await findAccountByEmail(db, email);
  if (!(await verifyPassword(password, found?.passwordHash)) || !found) throw unauthorized(WRONG_CREDENTIALS);
  await attempt.succeeded();
  return found;
}
