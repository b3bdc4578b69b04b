// Issue 8, point 5: a JWT without `exp` was accepted forever. It must carry `exp`; `nbf` is honoured.
import { sign } from "hono/jwt";
import { describe, expect, it } from "vitest";
import { call, expectError } from "../helpers";

const SECRET = "test-jwt-secret"; // vitest.config.ts's JWT_SECRET
const now = () => Math.floor(Date.now() / 1000);

describe("JWT bearer tokens", () => {
  it("a correctly signed token without exp is refused (401), on reads and writes", async () => {
    const forever = await sign({ sub: "someone" }, SECRET, "HS256");
    expect((await expectError(await call("GET", "/tools", { token: forever }), 401)).message).toMatch(/token/i);
    await expectError(await call("POST", "/tools", { token: forever, body: { name: "from-a-forever-token" } }), 401);
    const tools = await (await call("GET", "/tools")).json<{ name: string }[]>();
    expect(tools.map((t) => t.name)).not.toContain("from-a-forever-token");
  });

  it("exp must be a number in the future", async () => {
    for (const exp of ["9999999999", null, now() - 1]) {
      await expectError(await call("GET", "/tools", { token: await sign({ sub: "u", exp } as never, SECRET, "HS256") }), 401);
    }
    expect((await call("GET", "/tools", { token: await sign({ sub: "u", exp: now() + 60 }, SECRET, "HS256") })).status).toBe(200);
  });

  it("nbf is honoured: not before its time, fine after it", async () => {
    const early = await sign({ sub: "u", exp: now() + 7200, nbf: now() + 3600 }, SECRET, "HS256");
    await expectError(await call("GET", "/tools", { token: early }), 401);
    const started = await sign({ sub: "u", exp: now() + 7200, nbf: now() - 10 }, SECRET, "HS256");
    expect((await call("GET", "/tools", { token: started })).status).toBe(200);
  });
});
