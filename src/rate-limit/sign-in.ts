// Failed sign-ins, counted per account (its email, whether or not an account has it: the answer
// must not tell) and per client address, in the RateLimiter Durable Object every isolate shares.
// Each attempt is counted before the password is checked (so parallel guesses cannot slip past
// the count), then taken back when it succeeds: what stays counted are the failures.
import type { Env } from "../env";
import { ApiError } from "../errors";
import { sha256Hex } from "../lib/crypto";
import type { RateLimiter } from "./limiter";

const WINDOW_MS = 15 * 60_000;
/** Failures allowed per window: per account (a targeted guess), per client (guessing across accounts). */
export const SIGN_IN_LIMITS = { account: 5, client: 20, windowMinutes: WINDOW_MS / 60_000 };

type Stub = DurableObjectStub<RateLimiter>;

export interface SignInAttempt {
  /** Call when the password was right: the attempt is no failure, and the account's count starts again. */
  succeeded(): Promise<void>;
}

function stubs(env: Env, email: string, clientIp: string): Promise<[Stub, Stub] | undefined> {
  const ns = env.RATE_LIMITER as DurableObjectNamespace<RateLimiter> | undefined;
  if (!ns) return Promise.resolve(undefined); // not bound: no limit rather than no sign-in
  return sha256Hex(email).then((hash) => [
    ns.get(ns.idFromName(`sign-in|account|${hash}`)),
    ns.get(ns.idFromName(`sign-in|client|${clientIp}`)),
  ]);
}

/** Counts a sign-in attempt; 429 when the account or the client has failed too often in the window. */
export async function countSignInAttempt(env: Env, email: string, clientIp: string): Promise<SignInAttempt> {
  const pair = await stubs(env, email, clientIp);
  if (!pair) return { succeeded: async () => {} };
  const [account, client] = pair;
  const [byAccount, byClient] = await Promise.all([
    account.hit(SIGN_IN_LIMITS.account, WINDOW_MS),
    client.hit(SIGN_IN_LIMITS.client, WINDOW_MS),
  ]);
  if (!byAccount.allowed || !byClient.allowed) {
    const waitMs = Math.max(...[byAccount, byClient].filter((count) => !count.allowed).map((count) => count.retryAfterMs));
    const minutes = Math.max(1, Math.ceil(waitMs / 60_000));
    // `type`: the UI shows its own "too many requests" line on the sign-in page for this one.
    throw new ApiError(429, `Too many failed sign-in attempts: try again in ${minutes} minute${minutes === 1 ? "" : "s"}`, {
      type: "authentication_rate_limit",
    });
  }
  return { succeeded: () => Promise.all([account.reset(), client.forgive()]).then(() => {}) };
}
