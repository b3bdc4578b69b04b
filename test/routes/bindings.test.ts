import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { BASE, expectError } from "../helpers";

// The worker's own handler, called with an environment lacking bindings a deployment could forget.
const fetchWith = (bindings: Record<string, unknown>, path: string) =>
  worker.fetch(
    new Request(`${BASE}${path}`, { headers: { Authorization: "Bearer test-admin-key" } }),
    bindings as never,
    createExecutionContext(),
  );

describe("required bindings", () => {
  it("a missing binding answers a 500 naming it, before any handler runs", async () => {
    const { DB: _db, FILES: _files, ...rest } = env as unknown as Record<string, unknown>;
    for (const path of ["/tools", "/ping"]) {
      const err = await expectError(await fetchWith(rest, path), 500);
      expect(err.message).toBe(
        "The worker is misconfigured: bindings DB, FILES missing (declare them in wrangler.toml; see the README's Configuration)",
      );
    }
    const { ASSETS: _assets, ...noAssets } = env as unknown as Record<string, unknown>;
    expect((await expectError(await fetchWith(noAssets, "/ping"), 500)).message).toContain("binding ASSETS missing");
  });

  it("the complete environment serves, AI and VECTORIZE being optional", async () => {
    const { AI: _ai, VECTORIZE: _vectorize, ...local } = env as unknown as Record<string, unknown>;
    const res = await fetchWith(local, "/tools");
    expect(res.status).toBe(200);
    expect(Array.isArray(await res.json())).toBe(true);
  });
});
