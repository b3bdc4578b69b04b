// The redirecting stand-in (test/standin/redirector.mjs) as the redirect tests use it: two loopback
// origins, a plan of hops in the path, and what each origin received.
import { inject } from "vitest";

export const originA = () => inject("redirectorA");
export const originB = () => inject("redirectorB");

/** A fresh id: the records of one test. */
export const planId = () => `r${crypto.randomUUID().slice(0, 8)}`;

/**
 * A base URL on origin a whose requests go through `plan` ("307b": a 307 to origin b; "302a.302a":
 * two hops on a; "307r": a relative Location) before reaching the stand-in `upstream`.
 */
export const via = (upstream: string, id: string, plan: string) => `${originA()}/${upstream}/${id}/${plan}`;

/** `n` hops that stay on origin a. */
export const hops = (n: number, status = 302) => Array.from({ length: n }, () => `${status}a`).join(".");

export interface Hop {
  server: "a" | "b";
  method: string;
  path: string;
  plan: string;
  headers: Record<string, string>;
  body: string;
}

/** What either origin received for `id`, oldest first. */
export async function hopsOf(id: string): Promise<Hop[]> {
  return (await fetch(`${originA()}/requests?id=${id}`)).json();
}

/** The requests origin b received for `id` whose headers hold `secret` anywhere (name or value). */
export async function leaksTo(id: string, secret: string): Promise<Hop[]> {
  return (await hopsOf(id)).filter((h) => h.server === "b" && JSON.stringify(h.headers).includes(secret));
}
