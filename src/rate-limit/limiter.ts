import { DurableObject } from "cloudflare:workers";

/**
 * One instance per (chatflow, client IP), or per sign-in account or client (sign-in.ts): a
 * fixed-window counter. A Durable Object is the one place every Worker isolate sees the same count.
 */
export class RateLimiter extends DurableObject {
  private windowStart = 0;
  private count = 0;

  /** Counts a call; answers whether it is within `limitMax` per `windowMs`. */
  async hit(limitMax: number, windowMs: number): Promise<{ allowed: boolean; retryAfterMs: number }> {
    const now = Date.now();
    if (now - this.windowStart >= windowMs) {
      this.windowStart = now;
      this.count = 0;
    }
    this.count++;
    return { allowed: this.count <= limitMax, retryAfterMs: Math.max(0, this.windowStart + windowMs - now) };
  }

  /** Takes back one counted call (a sign-in that succeeded counts no failure). */
  async forgive(): Promise<void> {
    if (this.count > 0) this.count--;
  }

  /** Starts the count again (an account's failures, once its password was given). */
  async reset(): Promise<void> {
    this.count = 0;
  }
}
