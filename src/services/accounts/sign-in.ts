import { unauthorized } from "../../errors";
import { verifyPassword } from "../../lib/password";
import { countSignInAttempt } from "../../rate-limit/sign-in";
import { type Account, findAccountByEmail } from "./accounts";
import type { Deps } from "../deps";

export const WRONG_CREDENTIALS = "Incorrect email or password";

export async function signIn(deps: Deps<"db" | "env">, email: string, password: string, clientIp: string): Promise<Account> {
  const { db, env } = deps;
  const attempt = await countSignInAttempt(env, email, clientIp);
  const found = await findAccountByEmail({ db }, email);
  if (!(await verifyPassword(password, found?.passwordHash)) || !found) throw unauthorized(WRONG_CREDENTIALS);
  await attempt.succeeded();
  return found;
}
